import { auditKeyOf, type Db, type DbDriver, driverOf, wrapDriver } from './db.ts';

/**
 * Statements outside any tenant transaction, for tools (a benchmark's tables and indexes) and
 * tests (catalog checks, negative controls). Product code cannot import this file (lint): its
 * only way to the database is `withTenant` and the store operations built on it.
 */
export function unscoped(db: Db): DbDriver {
  return driverOf(db);
}

/** A store over a driver a tool wraps (a profile timing each statement), keeping the audit key. */
export function overDriver(db: Db, driver: DbDriver): Db {
  return wrapDriver(driver, auditKeyOf(db));
}
