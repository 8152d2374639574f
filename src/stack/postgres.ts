import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, openSync, closeSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { STACK } from './endpoints.ts';
import { LOG_DIR, PG_INSTALL, VAR, logFile, pidFile, toolPath } from './paths.ts';
import { isAlive, spawnDetached, terminate, waitUntil } from './process.ts';
import { provisionLogins } from './postgres-roles.ts';
import type { Service } from './service.ts';

/** PostgreSQL refuses to run as root; as root we run it as this unprivileged system user. */
export const PG_OS_USER = 'nocturne';
/** Bootstrap superuser made by initdb; reachable only through the unix socket below. */
const BOOTSTRAP_USER = 'postgres';

const BASE = path.join(VAR, 'postgres');
const DATA = path.join(BASE, 'data');
const SOCKET_DIR = path.join(BASE, 'socket');
const asRoot = (): boolean => process.getuid?.() === 0;
const bin = (name: string): string => toolPath(PG_INSTALL, 'bin', name);

/** Prefix that runs a command as the postgres OS user when we are root. */
function asPgUser(command: string, args: string[]): [string, string[]] {
  return asRoot() ? ['runuser', ['-u', PG_OS_USER, '--', command, ...args]] : [command, args];
}

/**
 * Runs a short command to completion without blocking the event loop (the other services'
 * health checks run concurrently). Output goes to `fd` when given, else it is captured.
 */
function run(command: string, args: string[], fd?: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'], timeout: 120_000 });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
  });
}

async function runAsPgUser(command: string, args: string[], what: string): Promise<void> {
  const [cmd, argv] = asPgUser(command, args);
  mkdirSync(LOG_DIR, { recursive: true });
  const fd = openSync(logFile('postgres'), 'a');
  try {
    const { code } = await run(cmd, argv, fd);
    if (code !== 0) throw new Error(`${what} failed (exit ${code}); see ${logFile('postgres')}`);
  } finally {
    closeSync(fd);
  }
}

/** As root: make sure the OS user exists and can reach the binaries and write var/postgres. */
async function prepareOsUser(): Promise<void> {
  if ((await run('id', ['-u', PG_OS_USER])).code !== 0) {
    const add = await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      PG_OS_USER,
    ]);
    if (add.code !== 0) throw new Error(`useradd ${PG_OS_USER} failed: ${add.out.trim()}`);
  }
  const uid = Number((await run('id', ['-u', PG_OS_USER])).out.trim());
  const gid = Number((await run('id', ['-g', PG_OS_USER])).out.trim());
  for (const dir of [BASE, SOCKET_DIR]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownSync(dir, uid, gid);
  }
  const probe = async (flag: string, p: string): Promise<boolean> =>
    (await run('runuser', ['-u', PG_OS_USER, '--', 'test', flag, p])).code === 0;
  const postgresBin = bin('postgres');
  if (!(await probe('-x', postgresBin)) || !(await probe('-r', path.join(PG_INSTALL, 'lib', 'vector.so')))) {
    throw new Error(
      `OS user ${PG_OS_USER} cannot execute ${postgresBin}; every parent directory must be traversable by others (chmod o+x)`,
    );
  }
  if (!(await probe('-w', BASE))) {
    throw new Error(
      `OS user ${PG_OS_USER} cannot write ${BASE}; every parent directory must be traversable by others (chmod o+x)`,
    );
  }
}

async function initdbIfNeeded(): Promise<void> {
  if (existsSync(path.join(DATA, 'PG_VERSION'))) return;
  rmSync(DATA, { recursive: true, force: true }); // a half-made cluster from an interrupted initdb
  // trust only on the unix socket (its directory is private to the OS user); TCP always needs a password.
  await runAsPgUser(
    bin('initdb'),
    ['-D', DATA, '-U', BOOTSTRAP_USER, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-locale'],
    'initdb',
  );
}

function superuserClient(database = 'postgres'): pg.Client {
  return new pg.Client({ host: SOCKET_DIR, port: STACK.postgres.port, user: BOOTSTRAP_USER, database });
}

/** A client of the stack's database over TCP with a password: the runtime login, or the owner's. */
export function stackPgClient(
  database: string = STACK.postgres.database,
  login: 'runtime' | 'owner' = 'runtime',
): pg.Client {
  const { host, postgres } = STACK;
  return new pg.Client({
    host,
    port: postgres.port,
    user: login === 'owner' ? postgres.owner : postgres.user,
    password: login === 'owner' ? postgres.ownerPassword : postgres.password,
    database,
    connectionTimeoutMillis: 3_000,
  });
}

/** Both logins work, and the runtime one has no attribute that would lift row-level security. */
async function checkLogins(): Promise<void> {
  const owner = stackPgClient(STACK.postgres.database, 'owner');
  await owner.connect();
  await owner.end();
  const runtime = stackPgClient();
  await runtime.connect();
  try {
    const { rows } = await runtime.query<{ rolsuper: boolean; rolbypassrls: boolean }>(
      'SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    if (rows[0]?.rolsuper !== false || rows[0]?.rolbypassrls !== false)
      throw new Error(`the runtime login ${STACK.postgres.user} is a superuser or bypasses row-level security`);
  } finally {
    await runtime.end();
  }
}

export const postgres: Service = {
  name: 'postgres',
  endpoint: `postgres://${STACK.postgres.user}@${STACK.host}:${STACK.postgres.port}/${STACK.postgres.database}`,
  ports: [STACK.postgres.port],
  marker: DATA,

  async start() {
    if (asRoot()) await prepareOsUser();
    else mkdirSync(SOCKET_DIR, { recursive: true, mode: 0o700 });
    await initdbIfNeeded();
    const settings = {
      listen_addresses: STACK.host,
      port: String(STACK.postgres.port),
      unix_socket_directories: SOCKET_DIR,
      password_encryption: 'scram-sha-256',
      // 2-core developer machines: keep the footprint small.
      shared_buffers: '128MB',
      max_connections: '200',
      fsync: 'on',
    };
    const args = ['-D', DATA, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    const [cmd, argv] = asPgUser(bin('postgres'), args);
    spawnDetached('postgres', cmd, argv);
  },

  /** Creates the app role, the owner and runtime logins and the database (postgres-roles.ts). */
  async provision() {
    const cluster = superuserClient();
    await cluster.connect();
    try {
      await provisionLogins(cluster, (database) => superuserClient(database), STACK.postgres);
    } finally {
      await cluster.end();
    }
  },

  /**
   * Logs in over TCP with both logins' passwords, checks the runtime login's attributes, and
   * builds an HNSW index in a temporary table; rolled back, so it leaves nothing behind.
   */
  async health() {
    await checkLogins();
    const client = stackPgClient();
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('CREATE TEMP TABLE nocturne_health (id int, e vector(3)) ON COMMIT DROP');
      await client.query(`INSERT INTO nocturne_health VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]')`);
      await client.query('CREATE INDEX ON nocturne_health USING hnsw (e vector_cosine_ops)');
      const { rows } = await client.query<{ id: number }>(
        `SELECT id FROM nocturne_health ORDER BY e <=> '[0.1,0.9,0]' LIMIT 1`,
      );
      if (rows[0]?.id !== 2) throw new Error(`pgvector nearest-neighbour query returned ${JSON.stringify(rows)}`);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  },

  /** `pg_ctl stop -m fast` as the OS user (a clean shutdown), then the generic SIGTERM/SIGKILL as a fallback. */
  async stop(pid) {
    try {
      await runAsPgUser(bin('pg_ctl'), ['stop', '-D', DATA, '-m', 'fast', '-w', '-t', '30'], 'pg_ctl stop');
    } catch {
      // fall through to signals
    }
    if (await waitUntil(() => !isAlive(pid), 10_000)) {
      rmSync(pidFile('postgres'), { force: true });
      return 'stopped';
    }
    return terminate('postgres', pid);
  },
};
