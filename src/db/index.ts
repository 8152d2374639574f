/** The note store's public surface. */
export type { Db, Queryable, QueryResult, SessionConnection } from './db.ts';
export { openDb, type OpenDbOptions } from './open-db.ts';
export { createPgDb, type PgDbOptions } from './pg-driver.ts';
export { createPgliteDb, type PgliteDbOptions } from './pglite-driver.ts';
export { runMigrations, readEmbeddingDimension, MIGRATIONS_DIR, type MigrateOptions } from './migrate.ts';
export { withTenant, APP_ROLE } from './tenant.ts';
export { dropSchema } from './drop-schema.ts';
export * from './errors.ts';
export { applyNoteBatch } from './notes/apply-batch.ts';
export {
  getNote,
  listNotes,
  getNoteHistory,
  type ListNotesParams,
  type NotePage,
  type NoteHistory,
} from './notes/read.ts';
export {
  NoteOp,
  NoteBatch,
  BatchResult,
  NoteChange,
  ContentChanges,
  VERSION_ACTIONS,
  type VersionAction,
} from './notes/ops.ts';
export { diffVersions, DIFFED_FIELDS, type VersionDiff, type FieldChange } from './notes/diff.ts';
export { verifyAuditChain, type AuditChainReport } from './audit/verify.ts';
export { insertRun, updateRun, getRun, type NewRun, type RunUpdate } from './runs.ts';
export { insertMemoryUsage, MemoryUsageRow } from './memory-usage.ts';
