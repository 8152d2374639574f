import { ApplicationFailure } from '@temporalio/common';
import type { NoteVersion } from '../src/contracts/note.ts';
import { rollbackRunBatchRunId } from '../src/contracts/workflow-ids.ts';
import { applyNoteBatch, getNoteHistory, getRun, updateRun, withTenant } from '../src/db/index.ts';
import type { NoteOp } from '../src/db/notes/ops.ts';
import { selectAppliedBatch } from '../src/db/notes/write-queries.ts';
import { classified, type ActivityDeps } from './deps.ts';

export interface RollbackRunActivityInput {
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

/**
 * What makes two versions "the same memory": what recall would return from them (the same
 * comparison rollbackNote makes, so both rollbacks agree on what a no-op is).
 */
function sameMemory(a: NoteVersion, b: NoteVersion): boolean {
  const pick = (v: NoteVersion) => [
    v.status,
    v.claim,
    v.kind,
    v.scope.level,
    v.scope.key,
    v.confidence,
    v.validUntil,
    v.supersededBy,
    JSON.stringify(v.evidence),
  ];
  return JSON.stringify(pick(a)) === JSON.stringify(pick(b));
}

interface Plan {
  ops: NoteOp[];
  skipped: RollbackRunResult['skipped'];
}

/**
 * For each note the run changed: the version before the run (the earliest `fromVersion`), or
 * retirement when the run created it. Notes already equal to their target are skipped, which
 * makes a repeated rollback a no-op; erased notes are never brought back.
 */
async function planRollback(
  deps: ActivityDeps,
  input: RollbackRunActivityInput,
  changed: Array<{ noteId: string; fromVersion: number | null }>,
): Promise<Plan> {
  const before = new Map<string, number | null>();
  for (const c of changed) {
    const seen = before.get(c.noteId);
    // A note the run created has no "before" (null wins); otherwise the earliest version does.
    if (seen === undefined) before.set(c.noteId, c.fromVersion);
    else if (seen !== null) before.set(c.noteId, c.fromVersion === null ? null : Math.min(seen, c.fromVersion));
  }
  const reason = `rollback of run ${input.runId}: ${input.reason}`;
  const plan: Plan = { ops: [], skipped: [] };
  for (const [noteId, target] of [...before].sort(([a], [b]) => a.localeCompare(b))) {
    const { versions } = await getNoteHistory(deps.db, { tenantId: input.tenantId, noteId });
    const current = versions.at(-1);
    if (!current) continue;
    if (current.status === 'erased') {
      plan.skipped.push({ noteId, why: 'erased' });
      continue;
    }
    if (target === null) {
      if (NOT_RECALLED.has(current.status)) plan.skipped.push({ noteId, why: 'not_recalled' });
      else
        plan.ops.push({
          op: 'newVersion',
          action: 'retire',
          noteId,
          expectedVersion: current.version,
          reason: `created by the run; ${reason}`,
        });
      continue;
    }
    const wanted = versions.find((v: NoteVersion) => v.version === target);
    if (!wanted)
      throw ApplicationFailure.nonRetryable(`note ${noteId} has no version ${target}`, 'InvalidRollbackTarget');
    if (sameMemory(current, wanted)) plan.skipped.push({ noteId, why: 'already_at_target' });
    else
      plan.ops.push({
        op: 'newVersion',
        action: 'rollback',
        noteId,
        expectedVersion: current.version,
        targetVersion: target,
        reason: `rollback to v${target}: ${reason}`,
      });
  }
  return plan;
}

export function createRollbackRunActivities(deps: ActivityDeps) {
  return {
    /**
     * Rolls back every note version a run changed, in one audited batch keyed by the request.
     * Retrying after a commit finds the stored batch and returns what it did.
     */
    rollbackRun: classified(async (input: RollbackRunActivityInput): Promise<RollbackRunResult> => {
      const run = await getRun(deps.db, { tenantId: input.tenantId, runId: input.runId });
      if (!run)
        throw ApplicationFailure.nonRetryable(
          `runId: no run ${input.runId} in tenant ${input.tenantId}`,
          'RunNotFound',
        );
      const plan = await planRollback(deps, input, run.changedVersions);
      const key = rollbackRunBatchKey(input.requestId);
      const base = { runId: input.runId, tenantId: input.tenantId, skipped: plan.skipped };
      let changes: RollbackRunResult['changes'];
      if (plan.ops.length > 0) {
        const result = await applyNoteBatch(
          deps.db,
          { tenantId: input.tenantId, ...key, actor: input.operator, ops: plan.ops },
          deps.clock,
        );
        changes = result.changes.map((c) => ({
          noteId: c.noteId,
          action: c.action,
          fromVersion: c.fromVersion,
          toVersion: c.toVersion,
        }));
      } else {
        // Nothing left to do: either a repeated rollback, or this request's batch already committed.
        const applied = await withTenant(deps.db, input.tenantId, (tx) =>
          selectAppliedBatch(tx, { tenantId: input.tenantId, ...key }),
        );
        changes =
          applied?.result.changes.map((c) => ({
            noteId: c.noteId,
            action: c.action,
            fromVersion: c.fromVersion,
            toVersion: c.toVersion,
          })) ?? [];
      }
      await updateRun(deps.db, { tenantId: input.tenantId, runId: input.runId, status: 'rolled_back' });
      return { ...base, noop: changes.length === 0, changes };
    }),
  };
}
