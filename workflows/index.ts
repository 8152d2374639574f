// The one workflow bundle entry: every workflow the worker runs, by name.
export { consolidateTenantWorkflow } from './consolidate-tenant.ts';
export { rollbackNoteWorkflow } from './rollback-note.ts';
export { rollbackRunWorkflow } from './rollback-run.ts';
export { eraseSubjectWorkflow } from './erase-subject.ts';
export { nightlyConsolidationWorkflow } from './nightly-consolidation.ts';
export { conflictMonitorWorkflow } from './conflict-monitor.ts';
export { reindexWorkflow } from './reindex.ts';
export { indexNoteVectorsWorkflow } from './index-note-vectors.ts';
export { indexRunRecordsWorkflow } from './record-index-step.ts';
