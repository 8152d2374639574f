import type { AuditKey } from './audit/keyed.ts';

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

export interface QueryOptions {
  /**
   * Keep the statement parsed on its connection (on a server, a named prepared statement): a
   * later run of the same text there skips parsing and analysis and is still planned for its
   * values. For the few fixed texts a hot path runs on every call (recall's reads); PGlite, in
   * process, ignores it.
   */
  prepare?: boolean;
}

/** The options of a statement kept prepared. */
export const PREPARED: QueryOptions = Object.freeze({ prepare: true });

export interface Queryable {
  /** Runs one statement with bound parameters (`$1`, `$2`, …). */
  query(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult>;
}

/** Transaction-local settings, name and value, in the order they are made. */
export type TransactionSettings = ReadonlyArray<readonly [name: string, value: string]>;

/** The settings as one statement with bound parameters ($1 name, $2 value, …), for a driver that sends them so. */
export function settingsStatement(settings: TransactionSettings): { text: string; params: string[] } {
  return {
    text: `SELECT ${settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`,
    params: settings.flat(),
  };
}

/**
 * What a driver offers: statements, transactions and sessions without any tenant. Only src/db's
 * own files (withTenant, the migration runner) and `unscoped.ts` (tools and tests) reach it.
 */
export interface DbDriver extends Queryable {
  readonly driver: 'postgres' | 'pglite';
  /**
   * Runs `fn` inside BEGIN … COMMIT on one connection; any throw rolls back and is rethrown.
   * `settings` are made transaction-local (`set_config(name, value, true)`) before `fn` runs.
   * The `Queryable` handed to `fn` must not escape it.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, settings?: TransactionSettings): Promise<T>;
  /**
   * Runs `fn` on one dedicated connection outside any implicit transaction, for work that needs
   * session state (the migration runner's advisory lock, search_path and settings).
   */
  session<T>(fn: (conn: SessionConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The key a Db keeps its driver under; index.ts does not export it. */
export const DRIVER: unique symbol = Symbol('nocturne.db.driver');
/** The key a Db keeps the audit key under (held by the process, never stored in the database). */
export const AUDIT_KEY: unique symbol = Symbol('nocturne.db.auditKey');

/**
 * The note store as the product sees it: opened, passed to store operations and `withTenant`,
 * closed. It has no query method of its own, so product code cannot run a statement outside a
 * tenant transaction (on the server the runtime login would see no tenant's rows anyway).
 */
export interface Db {
  readonly driver: 'postgres' | 'pglite';
  close(): Promise<void>;
  readonly [DRIVER]: DbDriver;
  readonly [AUDIT_KEY]?: AuditKey;
}

export function wrapDriver(driver: DbDriver, auditKey?: AuditKey): Db {
  return {
    driver: driver.driver,
    close: () => driver.close(),
    [DRIVER]: driver,
    ...(auditKey ? { [AUDIT_KEY]: auditKey } : {}),
  };
}

export function driverOf(db: Db): DbDriver {
  return db[DRIVER];
}

/** The same store, signing and verifying audit entries with `key`. */
export function withAuditKey(db: Db, key: AuditKey | undefined): Db {
  return key ? wrapDriver(driverOf(db), key) : db;
}

/** The key audit entries are signed and verified with, or undefined (legacy entries only). */
export function auditKeyOf(db: Db): AuditKey | undefined {
  return db[AUDIT_KEY];
}

export interface SessionConnection extends Queryable {
  /** Runs a script of several statements without parameters (simple query protocol). */
  exec(script: string): Promise<QueryResult>;
}
