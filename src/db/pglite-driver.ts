import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import {
  type Db,
  type Queryable,
  type QueryResult,
  type SessionConnection,
  settingsStatement,
  type TransactionSettings,
  wrapDriver,
} from './db.ts';

export interface PgliteDbOptions {
  /**
   * Folder for the data files (created if missing); absent → in memory (tests).
   * One process at a time: PGlite is an in-process database, not a server.
   */
  dataDir?: string;
}

interface PgliteResults {
  rows: unknown[];
  affectedRows?: number;
}

function toResult(result: PgliteResults): QueryResult {
  return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
}

/** A `Db` over an in-process PGlite with the pgvector extension loaded. */
export async function createPgliteDb(options: PgliteDbOptions = {}): Promise<Db> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const pglite = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    extensions: { vector },
  });
  return wrapPglite(pglite);
}

export function wrapPglite(pglite: PGlite): Db {
  return wrapDriver({
    driver: 'pglite',
    async query(text, params) {
      return toResult(await pglite.query(text, params as unknown[] | undefined));
    },
    // PGlite has one connection; its transaction() queues other callers until this one ends,
    // which is what gives concurrent writers the same serialisation a server's locks give.
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, settings: TransactionSettings = []): Promise<T> {
      return pglite.transaction(async (tx) => {
        if (settings.length > 0) {
          const { text, params } = settingsStatement(settings);
          await tx.query(text, params);
        }
        return fn({ query: async (text, params) => toResult(await tx.query(text, params as unknown[] | undefined)) });
      });
    },
    // PGlite has a single session: this is the shared one, so callers run it before other work
    // (openDb migrates before handing the Db out).
    async session<T>(fn: (conn: SessionConnection) => Promise<T>): Promise<T> {
      return fn({
        query: async (text, params) => toResult(await pglite.query(text, params as unknown[] | undefined)),
        exec: async (script) => {
          const last = (await pglite.exec(script)).at(-1);
          return last ? toResult(last) : { rows: [], rowCount: 0 };
        },
      });
    },
    async close() {
      await pglite.close();
    },
  });
}
