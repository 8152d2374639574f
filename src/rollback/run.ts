import type { NoteVersion } from '../contracts/note.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { rollbackRunBatchRunId } from '../contracts/workflow-ids.ts';
import {
  applyNoteBatch,
  ERASED_CLAIM,
  getNoteHistory,
  getRun,
  selectAppliedBatch,
  updateRun,
  withTenant,
  type NoteChange,
  type NoteOp,
} from '../db/index.ts';
import { PermanentFailure, type Ports } from '../ports.ts';
import { sameMemory } from './same-memory.ts';

export interface RollbackRunInput {
  tenantId: string;
  runId: string;
  reason: string;
  operator: string;
  /** The workflow id: the idempotency key of the rollback's one batch. */
  requestId: string;
}

export interface RollbackRunResult {
  runId: string;
  tenantId: string;
  noop: boolean;
  /** Versions the rollback wrote (one audit entry each). */
  changes: Array<{ noteId: string; action: string; fromVersion: number | null; toVersion: number }>;
  /** Notes the run changed that the rollback left alone, and why. */
  skipped: Array<{ noteId: string; why: 'already_at_target' | 'erased' | 'not_recalled' }>;
}

/** Statuses a created note may keep after its run is rolled back: neither is ever recalled. */
const NOT_RECALLED = new Set(['retired', 'quarantined']);

/** The batch key of a rollback request: rollback batches never share keys with runs. */
export const rollbackRunBatchKey = (requestId: string) => ({ runId: rollbackRunBatchRunId(requestId), batchNo: 0 });

interface Plan {
  ops: NoteOp[];
  skipped: RollbackRunResult['skipped'];
}

/**
 * Rolls back every note version a run changed, in one audited batch keyed by the request.
 * Retrying after a commit finds the stored batch and returns what it did.
 */
export async function rollbackRun(
  ports: Pick<Ports, 'db' | 'clock'>,
  input: RollbackRunInput,
): Promise<RollbackRunResult> {
  const run = await getRun(ports.db, { tenantId: input.tenantId, runId: input.runId });
  if (!run)
    throw new PermanentFailure(`runId: no run ${input.runId} in tenant ${input.tenantId}`, FailureType.RunNotFound);
  const plan = await planRollback(ports, input, run.changedVersions);
  const key = rollbackRunBatchKey(input.requestId);
  let changes: NoteChange[];
  if (plan.ops.length > 0) {
    const batch = { tenantId: input.tenantId, ...key, actor: input.operator, ops: plan.ops };
    changes = (await applyNoteBatch(ports.db, batch, ports.clock)).changes;
  } else {
    // Nothing left to do: either a repeated rollback, or this request's batch already committed.
    const applied = await withTenant(ports.db, input.tenantId, (tx) =>
      selectAppliedBatch(tx, { tenantId: input.tenantId, ...key }),
    );
    changes = applied?.result.changes ?? [];
  }
  await updateRun(ports.db, { tenantId: input.tenantId, runId: input.runId, status: 'rolled_back' });
  return {
    runId: input.runId,
    tenantId: input.tenantId,
    skipped: plan.skipped,
    noop: changes.length === 0,
    changes: changes.map((c) => ({
      noteId: c.noteId,
      action: c.action,
      fromVersion: c.fromVersion,
      toVersion: c.toVersion,
    })),
  };
}

/**
 * For each note the run changed: the version before the run (the earliest `fromVersion`), or
 * retirement when the run created it. Notes already equal to their target are skipped, which
 * makes a repeated rollback a no-op; erased notes are never brought back.
 */
async function planRollback(
  ports: Pick<Ports, 'db'>,
  input: RollbackRunInput,
  changed: Array<{ noteId: string; fromVersion: number | null }>,
): Promise<Plan> {
  const reason = `rollback of run ${input.runId}: ${input.reason}`;
  const plan: Plan = { ops: [], skipped: [] };
  for (const [noteId, target] of [...versionsBefore(changed)].sort(([a], [b]) => a.localeCompare(b))) {
    const { versions } = await getNoteHistory(ports.db, { tenantId: input.tenantId, noteId });
    const step = rollbackStep(noteId, target, versions, reason);
    if (step === undefined) continue;
    if ('why' in step) plan.skipped.push(step);
    else plan.ops.push(step);
  }
  return plan;
}

/** Per note: the version before the run; null when the run created it (null wins over any version). */
function versionsBefore(changed: Array<{ noteId: string; fromVersion: number | null }>): Map<string, number | null> {
  const before = new Map<string, number | null>();
  for (const c of changed) {
    const seen = before.get(c.noteId);
    if (seen === undefined) before.set(c.noteId, c.fromVersion);
    else if (seen !== null) before.set(c.noteId, c.fromVersion === null ? null : Math.min(seen, c.fromVersion));
  }
  return before;
}

/** What to do with one note: an operation, a reason to leave it alone, or nothing (no such note). */
function rollbackStep(
  noteId: string,
  target: number | null,
  versions: NoteVersion[],
  reason: string,
): NoteOp | RollbackRunResult['skipped'][number] | undefined {
  const current = versions.at(-1);
  if (!current) return undefined;
  if (current.status === 'erased') return { noteId, why: 'erased' };
  if (target === null) {
    if (NOT_RECALLED.has(current.status)) return { noteId, why: 'not_recalled' };
    return {
      op: 'newVersion',
      action: 'retire',
      noteId,
      expectedVersion: current.version,
      reason: `created by the run; ${reason}`,
    };
  }
  const wanted = versions.find((v) => v.version === target);
  if (!wanted) throw new PermanentFailure(`note ${noteId} has no version ${target}`, FailureType.InvalidRollbackTarget);
  if (wanted.claim === ERASED_CLAIM) return { noteId, why: 'erased' };
  if (sameMemory(current, wanted)) return { noteId, why: 'already_at_target' };
  return {
    op: 'newVersion',
    action: 'rollback',
    noteId,
    expectedVersion: current.version,
    targetVersion: target,
    reason: `rollback to v${target}: ${reason}`,
  };
}
