import type { Config } from '../config.ts';
import { auditKey } from './audit/keyed.ts';
import { type Db, withAuditKey } from './db.ts';
import { runMigrations } from './migrate.ts';
import { createPgDb } from './pg-driver.ts';
import { createPgliteDb } from './pglite-driver.ts';

export interface OpenDbOptions {
  /** config.embedding.dimension: the N of `vector(N)`. */
  dimension: number;
  /** Schema for the tables (postgres only). @default the server's search_path */
  schema?: string;
  /** NOCTURNE_AUDIT_KEY: audit entries are keyed (HMAC) with it. Absent → legacy sha256 entries. */
  auditKey?: string;
  /** Apply pending migrations before returning. @default true */
  migrate?: boolean;
}

/** The embedded store in `dataDir` (`:memory:`: a throw-away one). */
function openPglite(dataDir: string): Promise<Db> {
  return createPgliteDb(dataDir === ':memory:' ? {} : { dataDir });
}

/** Applies pending migrations as the owner login, on a connection of its own closed afterwards. */
async function migrateAsOwner(database: Config['database'], options: OpenDbOptions): Promise<void> {
  const owner = await openStoreAsOwner(database, options.schema);
  try {
    await runMigrations(owner, { dimension: options.dimension, ...(options.schema ? { schema: options.schema } : {}) });
  } finally {
    await owner.close();
  }
}

/**
 * Opens the note store named by `config.database` and brings its schema up to date, so every
 * caller gets a store it can use (and a dimension mismatch fails here, at start-up). On a
 * server with a `migrationUrl`, the owner login migrates and the returned store uses the
 * runtime login (`url`), which can act as the app role only.
 * `{ kind: 'pglite', dataDir: ':memory:' }` opens a throw-away in-memory store (tests).
 */
export async function openDb(database: Config['database'], options: OpenDbOptions): Promise<Db> {
  const opened =
    database.kind === 'postgres'
      ? createPgDb({ url: database.url, ...(options.schema ? { schema: options.schema } : {}) })
      : await openPglite(database.dataDir);
  const db = withAuditKey(opened, options.auditKey ? auditKey(options.auditKey) : undefined);
  if (options.migrate === false) return db;
  try {
    if (database.kind === 'postgres' && database.migrationUrl) await migrateAsOwner(database, options);
    else
      await runMigrations(db, { dimension: options.dimension, ...(options.schema ? { schema: options.schema } : {}) });
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * The note store named by `database` as the login that owns its schema (the owner's URL on a
 * server that has one), without migrating it: for reading and reverting its migrations.
 */
export async function openStoreAsOwner(database: Config['database'], schema?: string): Promise<Db> {
  return database.kind === 'postgres'
    ? createPgDb({ url: database.migrationUrl ?? database.url, maxConnections: 1, ...(schema ? { schema } : {}) })
    : openPglite(database.dataDir);
}
