/**
 * The one small database port every store function takes. Two drivers implement it:
 * `pg` (a server) and PGlite (the embedded default), so the same queries, migrations and
 * contract tests run on both.
 */

export interface QueryResult {
  /** Raw driver rows: callers parse them with a row schema, never trust their shape. */
  rows: unknown[];
  /** Rows inserted/updated/deleted (or returned, for SELECT). */
  rowCount: number;
}

export interface Queryable {
  /** Runs one statement with bound parameters (`$1`, `$2`, …). */
  query(text: string, params?: readonly unknown[]): Promise<QueryResult>;
}

export interface Db extends Queryable {
  readonly driver: 'postgres' | 'pglite';
  /**
   * Runs `fn` inside BEGIN … COMMIT on one connection; any throw rolls back and is rethrown.
   * The `Queryable` handed to `fn` must not escape it.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` on one dedicated connection outside any implicit transaction, for work that needs
   * session state (the migration runner's advisory lock, search_path and settings).
   */
  session<T>(fn: (conn: SessionConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface SessionConnection extends Queryable {
  /** Runs a script of several statements without parameters (simple query protocol). */
  exec(script: string): Promise<QueryResult>;
}
