import { createHash } from 'node:crypto';
import pg from 'pg';
import { memoByText } from '../../policies/memo.ts';
import {
  type Db,
  type DbDriver,
  type Queryable,
  type QueryOptions,
  type QueryResult,
  type SessionConnection,
  type TransactionSettings,
  wrapDriver,
} from './db.ts';
import { PG_TYPES } from './pg-timestamps.ts';

export interface PgDbOptions {
  url: string;
  /**
   * Schema that holds Nocturne's tables; `public` stays on the search path because the
   * `vector` type lives there. Tests use a fresh schema per run so reruns start clean.
   */
  schema?: string;
  /** @default 10 */
  maxConnections?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function toResult(result: pg.QueryResult): QueryResult {
  return { rows: result.rows as unknown[], rowCount: result.rowCount ?? result.rows.length };
}

/**
 * A prepared statement's name: derived from its text, so the same on every connection (pg parses
 * a name once per connection and refuses another text under it). Remembered per text only to
 * skip hashing it again; a forgotten name is computed again the same.
 */
const preparedName = memoByText(
  (text: string) => `nocturne_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`,
  256,
);

/** One statement on a client or the pool, named when the caller asks to keep it prepared. */
async function run(
  on: pg.Pool | pg.PoolClient,
  text: string,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): Promise<QueryResult> {
  const values = params as unknown[] | undefined;
  const result = options?.prepare
    ? await on.query({ name: preparedName(text), text, values })
    : await on.query(text, values);
  return toResult(result);
}

/**
 * The pool listens for errors of idle clients only: a checked-out client whose connection
 * drops (a reset, a server restart) emits 'error' with no listener, which would end the whole
 * worker process. The query in flight fails anyway; this keeps the error for the release, so
 * the broken connection is discarded instead of returned to the pool.
 */
function watchCheckedOut(client: pg.PoolClient): { error(): Error | undefined; stop(): void } {
  let failed: Error | undefined;
  const onError = (error: Error) => {
    failed ??= error;
  };
  client.on('error', onError);
  return { error: () => failed, stop: () => void client.off('error', onError) };
}

/**
 * BEGIN and the transaction's settings in one simple-query message: one round trip instead of
 * two for every transaction that sets a tenant. The simple protocol takes no parameters, so the
 * values are quoted as literals (pg's escapeLiteral); an explicit BEGIN keeps the transaction open
 * after the message.
 */
function beginWith(settings: TransactionSettings): string {
  if (settings.length === 0) return 'BEGIN';
  const calls = settings.map(
    ([name, value]) => `set_config(${pg.escapeLiteral(name)}, ${pg.escapeLiteral(value)}, true)`,
  );
  return `BEGIN; SELECT ${calls.join(', ')}`;
}

/** A `Db` over a `pg` Pool: each transaction holds one pooled connection for its duration. */
export function createPgDb(options: PgDbOptions): Db {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid schema name ${JSON.stringify(options.schema)}: expected lowercase letters, digits and _`);
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    // Timestamps arrive as the ISO strings the row schemas make of them.
    types: PG_TYPES,
    // search_path is per connection, so set it at connect time rather than per query.
    ...(options.schema ? { options: `-c search_path=${options.schema},public` } : {}),
  });
  // An idle client's socket error would otherwise crash the process; the next query reconnects.
  pool.on('error', () => undefined);

  const driver: DbDriver = {
    driver: 'postgres',
    query: (text, params, options) => run(pool, text, params, options),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, settings: TransactionSettings = []): Promise<T> {
      const client = await pool.connect();
      const watch = watchCheckedOut(client);
      let broken: Error | undefined;
      try {
        await client.query(beginWith(settings));
        const tx: Queryable = { query: (text, params, options) => run(client, text, params, options) };
        const value = await fn(tx);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // The connection is unusable: discard it instead of returning it to the pool.
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        watch.stop();
        client.release(broken ?? watch.error());
      }
    },
    async session<T>(fn: (conn: SessionConnection) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const watch = watchCheckedOut(client);
      try {
        return await fn({
          query: (text, params, options) => run(client, text, params, options),
          exec: async (script) => {
            // A multi-statement script yields an array of results; the last one is the answer.
            const result = (await client.query(script)) as pg.QueryResult | pg.QueryResult[];
            const last = Array.isArray(result) ? result.at(-1) : result;
            return last ? toResult(last) : { rows: [], rowCount: 0 };
          },
        });
      } finally {
        // Session state (settings, search_path) must not leak to the next pool user.
        watch.stop();
        client.release(true);
      }
    },
    async close() {
      await pool.end();
    },
  };
  return wrapDriver(driver);
}
