/**
 * The note store's public surface: code outside src/db imports from this file only (lint
 * enforces it), so the files behind it can move without touching their callers. A `Db` has no
 * query method: every statement runs in a tenant transaction (`withTenant`) as the app role,
 * under row-level security. Tools and tests that need statements outside a tenant (a
 * benchmark's DDL, a catalog check) import `unscoped` from `unscoped.ts`; product code may not.
 *
 * Two kinds of function, told apart by their first parameter:
 * - **Queries** take `(tx: Queryable, params)`: one statement (or a few that belong together),
 *   no transaction of their own. The caller runs them inside `withTenant(db, tenantId, (tx) => …)`,
 *   which opens the transaction and sets `app.tenant_id` for row-level security, so several
 *   queries commit or fail together. Named for their SQL: `select…`, `insert…`, `update…`.
 * - **Store operations** take `(db: Db, params)` and open their own tenant transaction, because
 *   their invariant needs one (the tenant write lock, optimistic versions and the audit chain
 *   of `applyNoteBatch`, `writeErasedVersions`, `redactAudit`) or because they are a whole read
 *   a caller wants in one call (`getNote`, `getRun`). Named for their effect: `get…`, `apply…`.
 */
export type { Db, Queryable, QueryOptions, QueryResult, SessionConnection } from './db.ts';
export { PREPARED } from './db.ts';
export { isoColumn } from './rows.ts';
export { openDb, openStoreAsOwner, type OpenDbOptions } from './open-db.ts';
export { createPgDb, type PgDbOptions } from './pg-driver.ts';
export { createPgliteDb, wrapPglite, type PgliteDbOptions } from './pglite-driver.ts';
export {
  runMigrations,
  revertMigrations,
  migrationState,
  migrationNames,
  hasDownSection,
  downSectionDataLoss,
  type MigrationState,
  readStoredEmbeddingDimension,
  MIGRATIONS_DIR,
  type MigrateOptions,
} from './migrate.ts';
export { withTenant, APP_ROLE, type TenantOptions } from './tenant.ts';
export { dropSchema } from './drop-schema.ts';
export * from './errors.ts';

// Notes: versions, batches of operations, history.
export { applyNoteBatch, applyNoteBatchWriting, type AppliedBatch } from './notes/apply-batch.ts';
export {
  getNote,
  listNotes,
  getNoteHistory,
  type ListNotesParams,
  type NotePage,
  type NoteHistory,
} from './notes/read.ts';
export {
  selectCurrentVersion,
  selectCurrentVersionsByText,
  selectCurrentVersionsPage,
  selectNoteVersions,
} from './notes/read-queries.ts';
export { selectNotesMatching, type NoteSearch } from './notes/search-queries.ts';
export { selectAppliedBatch, selectVersions } from './notes/write-queries.ts';
export { NoteVersionRow, VERSION_COLUMNS } from './notes/version-row.ts';
export {
  NoteOp,
  NoteBatch,
  BatchResult,
  NoteChange,
  ContentChanges,
  VERSION_ACTIONS,
  type ParsedNoteOp,
  type VersionAction,
} from './notes/ops.ts';
export { diffVersions, DIFFED_FIELDS, type VersionDiff, type FieldChange } from './notes/diff.ts';
export { verifyAuditChain, type AuditChainReport, type AuditAnchor } from './audit/verify.ts';
export { getAuditHead } from './audit/head.ts';

// Consolidation runs and their working state.
export { insertRun, updateRun, getRun, type NewRun, type RunUpdate } from './runs.ts';
export * from './run-work.ts';
export { insertMemoryUsage, MemoryUsageRow, selectUsageForTasks, selectUsageForNote } from './memory-usage.ts';
export { insertFeedback, selectPendingFeedback, FeedbackRow } from './feedback.ts';

// Embedding rebuilds.
export * from './reindex-queries.ts';

// The recall projection: current, active notes, kept by triggers, rebuilt on demand.
export * from './recall-projection.ts';

// The raw-record index and the embedding cache.
export * from './record-index.ts';

// Subject erasure.
export * from './erasure/queries.ts';
export { writeErasedVersions } from './erasure/tombstones.ts';
export { redactAudit, redactedReason } from './erasure/redact-audit.ts';
export { scanDatabaseForSubject, type StoreFinding } from './erasure/scan.ts';
export * from './erasure/requests.ts';
export * from './tenant-lock.ts';
export * from './tenant-operation.ts';
