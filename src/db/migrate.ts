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

/**
 * Applies pending migrations (idempotent: a second call applies nothing) and returns the names
 * it applied. Fails with EmbeddingDimensionMismatchError, before changing anything, when the
 * database was created with another embedding dimension.
 */
export async function runMigrations(db: Db, options: MigrateOptions): Promise<string[]> {
  if (!Number.isInteger(options.dimension) || options.dimension < 1) {
    throw new Error(`embedding dimension must be a positive integer, got ${options.dimension}`);
  }
  return driverOf(db).session(async (conn) => {
    if (options.schema) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema))
        throw new Error(`invalid schema name ${JSON.stringify(options.schema)}`);
      await conn.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
      await conn.query(`SELECT set_config('search_path', $1, false)`, [`"${options.schema}", public`]);
    }
    // Without an explicit schema, migrate the one the connection resolves to (a Db opened on a
    // schema sets it in its search_path), so the bookkeeping table sits beside the tables.
    const schema = options.schema ?? (await currentSchema(conn));
    await assertDimension(conn, options.dimension);
    // The SQL migrations read N from this session setting (SQL files take no parameters).
    await conn.query(`SELECT set_config('nocturne.embedding_dimension', $1, false)`, [String(options.dimension)]);
    const applied = await runner({
      dbClient: runnerClient(conn) as never,
      dir: MIGRATIONS_DIR,
      direction: 'up',
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
    await assertDimension(conn, options.dimension);
    return applied.map((m) => m.name);
  });
}
