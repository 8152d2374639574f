import { TenantId } from './ids.ts';

// Workflow ids are business keys: Temporal refuses to start a second workflow under an id that is
// running, so the id decides what may run at once. Every starter builds them here.

/** The UTC day (`YYYY-MM-DD`) of an instant: the date part of scheduled, conflict and manual run ids. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/**
 * A consolidation of one tenant: `consolidate/<tenant>/<label>`. Scheduled, conflict-triggered
 * and manual runs use the UTC day as the label, so one of them at a time runs per tenant and day;
 * demos and benchmarks use their own labels.
 */
export function consolidationId(tenantId: string, label: string): string {
  return `consolidate/${tenantId}/${label}`;
}

/**
 * The tenant a consolidation run id names (`consolidate/<tenant>/<label>/<temporal run id>`, the
 * run id a consolidation records), or undefined when it follows another scheme.
 */
export function tenantOfRunId(runId: string): string | undefined {
  const m = /^consolidate\/([^/]+)\//.exec(runId);
  return m?.[1] !== undefined && TenantId.safeParse(m[1]).success ? m[1] : undefined;
}

/**
 * The step that embeds a consolidation run's claims after they commit, one per run:
 * `note-vectors/<tenant>/<Temporal run id of the run's first execution>` (the last part of the
 * run id a consolidation records; the consolidation's workflow id is left out so that the id
 * is the same when a recorded history is replayed under another workflow id).
 */
export function noteVectorsId(tenantId: string, runId: string): string {
  return `note-vectors/${tenantId}/${runId.slice(runId.lastIndexOf('/') + 1)}`;
}

/**
 * The step that indexes the raw records of a consolidation run's window, one per run:
 * `record-index/<tenant>/<Temporal run id of the run's first execution>` (as `noteVectorsId`).
 */
export function runRecordIndexId(tenantId: string, runId: string): string {
  return `record-index/${tenantId}/${runId.slice(runId.lastIndexOf('/') + 1)}`;
}

/** A tenant's conflict monitor, one per tenant: `conflicts/<tenant>`. */
export function conflictMonitorId(tenantId: string): string {
  return `conflicts/${tenantId}`;
}

/** An operator's rollback of one note: `rollback-note/<tenant>/<note>/<unique>`. */
export function rollbackNoteId(tenantId: string, noteId: string, unique: string): string {
  return `rollback-note/${tenantId}/${noteId}/${unique}`;
}

/** An operator's rollback of a whole run: `rollback-run/<tenant>/<unique>`. */
export function rollbackRunId(tenantId: string, unique: string): string {
  return `rollback-run/${tenantId}/${unique}`;
}

/**
 * The erasure of one request: `erase/<tenant>/<request handle>`. The handle is random, so the id
 * says nothing about the subject; the tenant's lease lets one erasure of a tenant run at a time.
 */
export function eraseSubjectId(tenantId: string, handle: string): string {
  return `erase/${tenantId}/${handle}`;
}

/**
 * The run id under which a note rollback commits its one batch and reindexes it; it never
 * collides with a consolidation's run ids. Its argument is the rollback workflow's id.
 */
export function rollbackNoteBatchRunId(requestId: string): string {
  return `rollback/${requestId}`;
}

/** Likewise for a run rollback. */
export function rollbackRunBatchRunId(requestId: string): string {
  return `rollback-run/${requestId}`;
}

/** The one-line summary the Temporal UI shows for a consolidation: whose, and what started it. */
export const consolidationSummary = (tenantId: string, trigger: string): string =>
  `Consolidate tenant ${tenantId} (trigger: ${trigger})`;
