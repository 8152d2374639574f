import pg from 'pg';

/** The role tenant transactions act as (migration 0001 creates it too, for stores the stack does not provision). */
const APP_ROLE = 'nocturne_app';

export interface LoginSettings {
  /** Runtime login: NOSUPERUSER NOBYPASSRLS, a member of the app role and nothing else. */
  user: string;
  password: string;
  /** Owner login: owns the database and every object in it, runs the migrations; not a superuser. */
  owner: string;
  ownerPassword: string;
  database: string;
}

const id = (name: string): string => pg.escapeIdentifier(name);
const literal = (value: string): string => pg.escapeLiteral(value);

async function ensureRole(client: pg.Client, name: string, attributes: string): Promise<void> {
  const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name]);
  await client.query(`${rowCount ? 'ALTER' : 'CREATE'} ROLE ${id(name)} WITH ${attributes}`);
}

/** Every role `member` belongs to directly, except `keep`: revoked, so the login can act as `keep` only. */
async function revokeOtherMemberships(client: pg.Client, member: string, keep: string): Promise<void> {
  const { rows } = await client.query<{ role: string }>(
    `SELECT r.rolname AS role FROM pg_auth_members m
       JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
      WHERE u.rolname = $1 AND r.rolname <> $2`,
    [member, keep],
  );
  for (const { role } of rows) await client.query(`REVOKE ${id(role)} FROM ${id(member)} CASCADE`);
}

/**
 * Creates or brings up to date, idempotently, the three roles and the database, connected as a
 * superuser (the bootstrap user on the unix socket): the app role, the owner login and the
 * runtime login. Run on every `stack up`, so a cluster made when the runtime login was a
 * superuser is converted: the login loses its attributes and everything it owned moves to the owner.
 */
export async function provisionLogins(
  cluster: pg.Client,
  connectTo: (database: string) => pg.Client,
  s: LoginSettings,
): Promise<void> {
  const locked = 'NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION';
  await ensureRole(cluster, APP_ROLE, `NOLOGIN ${locked}`);
  await ensureRole(cluster, s.owner, `LOGIN ${locked} PASSWORD ${literal(s.ownerPassword)}`);
  await ensureRole(cluster, s.user, `LOGIN ${locked} INHERIT PASSWORD ${literal(s.password)}`);
  await revokeOtherMemberships(cluster, s.user, APP_ROLE);
  // INHERIT: outside withTenant the login still has only the app role's rights, under row-level
  // security, so neither a forgotten withTenant nor RESET ROLE reaches another tenant's rows.
  await cluster.query(`GRANT ${id(APP_ROLE)} TO ${id(s.user)}`);
  // The owner grants the app role its table rights; membership lets its sessions act as it too.
  await cluster.query(`GRANT ${id(APP_ROLE)} TO ${id(s.owner)}`);
  const db = await cluster.query('SELECT 1 FROM pg_database WHERE datname = $1', [s.database]);
  if (!db.rowCount) await cluster.query(`CREATE DATABASE ${id(s.database)} OWNER ${id(s.owner)}`);

  const client = connectTo(s.database);
  await client.connect();
  try {
    // pgvector is not a trusted extension: a superuser creates it, the owner's migrations find it.
    await client.query('CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public');
    // A database from before the split: its tables, functions and the database itself move to the owner.
    await client.query(`REASSIGN OWNED BY ${id(s.user)} TO ${id(s.owner)}`);
    await client.query(`ALTER DATABASE ${id(s.database)} OWNER TO ${id(s.owner)}`);
  } finally {
    await client.end();
  }
}
