import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import { z } from 'zod';
import { type Db, driverOf, type SessionConnection } from './db.ts';
import { EmbeddingDimensionMismatchError } from './errors.ts';

/** Numbered SQL files, applied in order by node-pg-migrate and recorded in `pgmigrations`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

export interface MigrateOptions {
  /** Embedding dimension N of `note_versions.embedding vector(N)` (config.embedding.dimension). */
  dimension: number;
  /** Schema to migrate; the same one the Db's connections use. @default the connection's search_path */
  schema?: string;
  /** Where runner messages go. @default warnings and errors to stderr, the rest dropped */
  log?: (message: string) => void;
  /** Apply at most this many pending migrations (to reproduce an older store). @default all */
  count?: number;
}

type RunnerLogger = {
  debug?: (m: string) => void;
  info: (m: string) => void;
  warn: (m: string) => void;
  error: (m: string) => void;
};

function runnerLogger(log: MigrateOptions['log']): RunnerLogger {
  const toStderr = (m: string): void => void process.stderr.write(`${m}\n`);
  if (log) return { info: log, warn: log, error: log };
  return { info: () => undefined, warn: toStderr, error: toStderr };
}

/**
 * node-pg-migrate's client contract is `query(text | { text, values }, values?) → { rows }`.
 * Its migration files are multi-statement scripts without parameters, which only the simple
 * protocol runs; its own bookkeeping queries are single statements.
 */
function runnerClient(conn: SessionConnection) {
  return {
    async query(q: string | { text: string; values?: unknown[] }, values?: unknown[]) {
      const text = typeof q === 'string' ? q : q.text;
      const params = values ?? (typeof q === 'string' ? undefined : q.values);
      return params && params.length > 0 ? conn.query(text, params) : conn.exec(text);
    },
  };
}

const TypeRow = z.object({ type: z.string() });
const SchemaRow = z.object({ schema: z.string() });

async function currentSchema(conn: SessionConnection): Promise<string> {
  const { rows } = await conn.query(`SELECT current_schema() AS schema`);
  return SchemaRow.parse(rows[0]).schema;
}

/** The dimension of the existing embedding column, or undefined before the first migration. */
export async function readEmbeddingDimension(conn: Pick<SessionConnection, 'query'>): Promise<number | undefined> {
  const { rows } = await conn.query(
    `SELECT format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a
      WHERE a.attrelid = to_regclass('note_versions') AND a.attname = 'embedding' AND NOT a.attisdropped`,
  );
  const row = rows[0] === undefined ? undefined : TypeRow.parse(rows[0]);
  const match = row ? /^vector\((\d+)\)$/.exec(row.type) : null;
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** The dimension of the store's embedding column, or undefined before the first migration. */
export async function readStoredEmbeddingDimension(db: Db): Promise<number | undefined> {
  return driverOf(db).session((conn) => readEmbeddingDimension(conn));
}

async function assertDimension(conn: SessionConnection, dimension: number): Promise<void> {
  const existing = await readEmbeddingDimension(conn);
  if (existing !== undefined && existing !== dimension) throw new EmbeddingDimensionMismatchError(existing, dimension);
}

function checkSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
}

/** The session set up for the runner: the schema (created when named) and the embedding dimension. */
async function prepareSession(conn: SessionConnection, options: MigrateOptions): Promise<string> {
  if (!Number.isInteger(options.dimension) || options.dimension < 1) {
    throw new Error(`embedding dimension must be a positive integer, got ${options.dimension}`);
  }
  if (options.schema) {
    checkSchemaName(options.schema);
    await conn.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    await conn.query(`SELECT set_config('search_path', $1, false)`, [`"${options.schema}", public`]);
  }
  // Without an explicit schema, migrate the one the connection resolves to (a Db opened on a
  // schema sets it in its search_path), so the bookkeeping table sits beside the tables.
  const schema = options.schema ?? (await currentSchema(conn));
  await assertDimension(conn, options.dimension);
  // The SQL migrations read N from this session setting (SQL files take no parameters).
  await conn.query(`SELECT set_config('nocturne.embedding_dimension', $1, false)`, [String(options.dimension)]);
  return schema;
}

async function runDirection(
  conn: SessionConnection,
  schema: string,
  direction: 'up' | 'down',
  options: MigrateOptions,
): Promise<string[]> {
  const applied = await runner({
    dbClient: runnerClient(conn) as never,
    dir: MIGRATIONS_DIR,
    direction,
    ...(options.count !== undefined ? { count: options.count } : {}),
    migrationsTable: 'pgmigrations',
    schema: schema === 'public' ? 'public' : [schema, 'public'],
    migrationsSchema: schema,
    checkOrder: true,
    singleTransaction: true,
    // Two processes starting at once: the second waits for the first instead of failing.
    advisoryLockMode: 'wait',
    logger: runnerLogger(options.log),
  });
  return applied.map((m) => m.name);
}

/**
 * Applies pending migrations (idempotent: a second call applies nothing) and returns the names
 * it applied. Fails with EmbeddingDimensionMismatchError, before changing anything, when the
 * database was created with another embedding dimension.
 */
export async function runMigrations(db: Db, options: MigrateOptions): Promise<string[]> {
  return driverOf(db).session(async (conn) => {
    const schema = await prepareSession(conn, options);
    const applied = await runDirection(conn, schema, 'up', options);
    await assertDimension(conn, options.dimension);
    return applied;
  });
}

/**
 * What a down section drops that may be in use: live rows of these tables hold the revert back
 * (an erasure the users' data would outlive, a lease a running operation still holds).
 */
const LIVE_ROWS_DROPPED: ReadonlyArray<{ migration: string; table: string; what: string; finish: string }> = [
  {
    migration: '0017_erasure-lock-and-handles',
    table: 'erasure_requests',
    what: 'erasure request(s) not finished',
    finish: "finish them (nocturne erase) or wait for them to expire; the users' data would stay",
  },
  {
    migration: '0017_erasure-lock-and-handles',
    table: 'tenant_locks',
    what: 'tenant lock(s) held by a running erasure',
    finish: 'let the erasure end',
  },
  {
    migration: '0023_tenant-operation-lease',
    table: 'tenant_operations',
    what: 'operation lease(s) held (a consolidation, rollback, erasure or reindex running)',
    finish: 'stop the workers and let the leases expire',
  },
];

/**
 * Unexpired rows of `table` over every tenant, read by the owner: FORCEd row-level security is
 * lifted for the count in a transaction rolled back at once, as migration 0020 did.
 */
async function liveRows(conn: SessionConnection, table: string): Promise<number> {
  await conn.exec('BEGIN');
  try {
    await conn.exec(`ALTER TABLE ${table} NO FORCE ROW LEVEL SECURITY`);
    const { rows } = await conn.query(`SELECT count(*)::int AS n FROM ${table} WHERE expires_at > now()`);
    return z.object({ n: z.number() }).parse(rows[0]).n;
  } finally {
    await conn.exec('ROLLBACK');
  }
}

/** Refuses (before changing anything) when a migration about to be reverted would drop live rows. */
async function assertNothingLiveDropped(conn: SessionConnection, reverting: readonly string[]): Promise<void> {
  for (const d of LIVE_ROWS_DROPPED.filter((x) => reverting.includes(x.migration))) {
    const n = await liveRows(conn, d.table);
    if (n > 0)
      throw new Error(
        `${n} ${d.what}: reverting ${d.migration} drops ${d.table}; ${d.finish}, then revert (nothing reverted)`,
      );
  }
}

/**
 * Reverts the last `count` applied migrations (newest first, in one transaction) through their
 * down sections, for a store going back to an earlier release; returns the names reverted.
 * Migrations up to 0016 have none: reverting one of them fails with node-pg-migrate's "has
 * disabled down migration" and changes nothing. It is refused while a table a down section drops
 * holds live rows (LIVE_ROWS_DROPPED: unfinished erasures, held leases). Run it as the owner
 * login, like the migrations.
 */
export async function revertMigrations(db: Db, options: MigrateOptions & { count: number }): Promise<string[]> {
  if (!Number.isInteger(options.count) || options.count < 1)
    throw new Error(`count of migrations to revert must be a positive integer, got ${options.count}`);
  return driverOf(db).session(async (conn) => {
    const schema = await prepareSession(conn, options);
    await assertNothingLiveDropped(conn, (await appliedNames(conn, schema)).slice(-options.count));
    return runDirection(conn, schema, 'down', options);
  });
}

/** The migrations this release holds, by name, in the order they apply. */
export function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.replace(/\.sql$/, ''))
    .sort();
}

/** A migration's down section, or undefined when it has none or is not in this release's folder. */
function downSection(name: string): string | undefined {
  const file = path.join(MIGRATIONS_DIR, `${name}.sql`);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').split(/^-- Down Migration$/m)[1];
}

/**
 * Whether a migration can be reverted: its file has a down section (an empty one undoes nothing,
 * on purpose). A migration of a later release is not in this one's folder: this release cannot
 * revert it.
 */
export function hasDownSection(name: string): boolean {
  return downSection(name) !== undefined;
}

/**
 * The statements of a migration's down section that lose data (a table or column dropped, rows
 * deleted), one line each, for an operator to read before reverting it.
 */
export function downSectionDataLoss(name: string): string[] {
  // Function bodies ($$ … $$) run later, as triggers; only the section's own statements count.
  return (downSection(name) ?? '')
    .replace(/\$\$[\s\S]*?\$\$/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(DROP TABLE|DELETE FROM|ALTER TABLE \S+ DROP COLUMN)\b/i.test(line))
    .map((line) => line.replace(/;$/, ''));
}

export interface MigrationState {
  /** Applied, oldest first. */
  applied: string[];
  /** Held by this release and not applied yet. */
  pending: string[];
  /** How many of the newest applied migrations `revertMigrations` can revert in a row. */
  revertible: number;
}

const NameRow = z.object({ name: z.string() });

/** Applied migrations, oldest first (none before the first migration made `pgmigrations`). */
async function appliedNames(conn: SessionConnection, schema: string): Promise<string[]> {
  checkSchemaName(schema);
  const { rows: exists } = await conn.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    `"${schema}".pgmigrations`,
  ]);
  if (!z.object({ present: z.boolean() }).parse(exists[0]).present) return [];
  const { rows } = await conn.query(`SELECT name FROM "${schema}".pgmigrations ORDER BY id`);
  return rows.map((r) => NameRow.parse(r).name);
}

/** What is applied to the store (read from node-pg-migrate's `pgmigrations`) and what is not. */
export async function migrationState(db: Db, options: Pick<MigrateOptions, 'schema'> = {}): Promise<MigrationState> {
  return driverOf(db).session(async (conn) => {
    const schema = options.schema ?? (await currentSchema(conn));
    const applied = await appliedNames(conn, schema);
    const known = new Set(applied);
    const newestFirst = [...applied].reverse();
    const stop = newestFirst.findIndex((name) => !hasDownSection(name));
    return {
      applied,
      pending: migrationNames().filter((name) => !known.has(name)),
      revertible: stop === -1 ? applied.length : stop,
    };
  });
}
