import type { Config } from '../config.ts';
import type { Db } from './db.ts';
import { runMigrations } from './migrate.ts';
import { createPgDb } from './pg-driver.ts';
import { createPgliteDb } from './pglite-driver.ts';

export interface OpenDbOptions {
  /** config.embedding.dimension: the N of `vector(N)`. */
  dimension: number;
  /** Schema for the tables (postgres only). @default the server's search_path */
  schema?: string;
  /** Apply pending migrations before returning. @default true */
  migrate?: boolean;
}

/**
 * Opens the note store named by `config.database` and brings its schema up to date, so every
 * caller gets a store it can use (and a dimension mismatch fails here, at start-up).
 * `{ kind: 'pglite', dataDir: ':memory:' }` opens a throw-away in-memory store (tests).
 */
export async function openDb(database: Config['database'], options: OpenDbOptions): Promise<Db> {
  const db =
    database.kind === 'postgres'
      ? createPgDb({ url: database.url, ...(options.schema ? { schema: options.schema } : {}) })
      : await createPgliteDb(database.dataDir === ':memory:' ? {} : { dataDir: database.dataDir });
  if (options.migrate === false) return db;
  try {
    await runMigrations(db, { dimension: options.dimension, ...(options.schema ? { schema: options.schema } : {}) });
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
