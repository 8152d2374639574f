import { rollbackNoteBatchRunId } from '../contracts/workflow-ids.ts';
import { applyNoteBatch, getNoteHistory, selectAppliedBatch, withTenant, type NoteChange } from '../db/index.ts';
import type { Ports } from '../ports.ts';
import { planRollback } from './note-cascade.ts';
import { rollbackGoal } from './note-goal.ts';

export interface RollbackNoteInput {
  tenantId: string;
  noteId: string;
  /** Absent → the version before the current one (a version-1 note is retired); 0 → retire. */
  toVersion?: number | undefined;
  /** `retire` or `quarantine` takes the note out of recall; `rollback` (the default) returns to a version. */
  action?: 'rollback' | 'retire' | 'quarantine' | undefined;
  /** A revived note's successor: retired (default) or kept. */
  successor?: 'retire' | 'keep' | undefined;
  reason: string;
  operator: string;
  /** The workflow id: the idempotency key of the rollback's one batch. */
  requestId: string;
}

export interface RollbackResult {
  noop: boolean;
  /** Every version written: the note, its successor, notes it contradicted or restored. */
  changes: Array<{ noteId: string; action?: string; fromVersion: number | null; toVersion: number }>;
  /** True when an earlier attempt of this request committed: `changes` is what that attempt did. */
  retried?: boolean;
  /** Notes the cascade would have restored but left as they are, and why. */
  skipped?: Array<{ noteId: string; why: string }>;
}

/**
 * Rolls one note back in one audited batch keyed by the request (history is never rewritten:
 * each change is a new version). Rolling back to what is already current changes nothing, so a
 * repeated request is a no-op; a retried attempt of a request that committed reports that commit.
 */
export async function rollbackNote(ports: Pick<Ports, 'db'>, input: RollbackNoteInput): Promise<RollbackResult> {
  const key = { tenantId: input.tenantId, runId: rollbackNoteBatchRunId(input.requestId), batchNo: 0 };
  const committed = await withTenant(ports.db, input.tenantId, (tx) => selectAppliedBatch(tx, key));
  if (committed) return { noop: false, retried: true, changes: committed.result.changes.map(brief), skipped: [] };
  try {
    return await planAndApply(ports, input, key);
  } catch (error) {
    // Another writer moved a note between the plan and the commit: plan once more on what is there now.
    if ((error as Error).name !== 'NoteVersionConflictError') throw error;
    return planAndApply(ports, input, key);
  }
}

async function planAndApply(
  ports: Pick<Ports, 'db'>,
  input: RollbackNoteInput,
  key: { tenantId: string; runId: string; batchNo: number },
): Promise<RollbackResult> {
  const { versions } = await getNoteHistory(ports.db, input);
  const { current, goal } = rollbackGoal(input, versions);
  const plan = await planRollback(ports, input, current, goal);
  if (plan.ops.length === 0) return { noop: true, changes: [], skipped: plan.skipped };
  const result = await applyNoteBatch(ports.db, { ...key, actor: input.operator, ops: plan.ops });
  return { noop: false, changes: result.changes.map(brief), skipped: plan.skipped };
}

const brief = (c: NoteChange) => ({
  noteId: c.noteId,
  action: c.action,
  fromVersion: c.fromVersion,
  toVersion: c.toVersion,
});
