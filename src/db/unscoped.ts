import { type Db, type DbDriver, driverOf } from './db.ts';

/**
 * Statements outside any tenant transaction, for tools (a benchmark's tables and indexes) and
 * tests (catalog checks, negative controls). Product code cannot import this file (lint): its
 * only way to the database is `withTenant` and the store operations built on it.
 */
export function unscoped(db: Db): DbDriver {
  return driverOf(db);
}
