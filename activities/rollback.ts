import { ApplicationFailure } from '@temporalio/common';
import type { NoteVersion } from '../src/contracts/note.ts';
import { rollbackNoteBatchRunId } from '../src/contracts/workflow-ids.ts';
import { applyNoteBatch, getNoteHistory, withTenant } from '../src/db/index.ts';
import type { NoteOp } from '../src/db/notes/ops.ts';
import { selectSupersededBy } from '../src/db/run-work.ts';
import { classified, type ActivityDeps } from './deps.ts';

export interface RollbackNoteActivityInput {
  tenantId: string;
  noteId: string;
  toVersion: number;
  reason: string;
  operator: string;
  /** The workflow id: the idempotency key of the rollback's one batch. */
  requestId: string;
}

export interface RollbackResult {
  noop: boolean;
  changes: Array<{ noteId: string; fromVersion: number | null; toVersion: number }>;
}

/** What makes two versions "the same memory": what recall would return from them. */
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

export function createRollbackActivities(deps: ActivityDeps) {
  return {
    /**
     * Writes a new version equal to `toVersion` (history is never rewritten) and restores the
     * notes that the rolled-back versions superseded. Rolling back to what is already current
     * changes nothing, so a repeated rollback is a no-op.
     */
    rollbackNote: classified(async (input: RollbackNoteActivityInput): Promise<RollbackResult> => {
      const { versions } = await getNoteHistory(deps.db, input);
      const current = versions.at(-1);
      if (!current)
        throw ApplicationFailure.nonRetryable(
          `note ${input.noteId} not found in tenant ${input.tenantId}`,
          'NoteNotFound',
        );
      // Erasure is final: its versions are scrubbed, and a rollback must not revive a subject's data.
      if (current.status === 'erased')
        throw ApplicationFailure.nonRetryable(
          `note ${input.noteId} was erased and cannot be rolled back`,
          'NoteErased',
        );
      const target = versions.find((v) => v.version === input.toVersion);
      if (!target) {
        throw ApplicationFailure.nonRetryable(
          `toVersion: note ${input.noteId} has versions 1..${current.version}, not ${input.toVersion}`,
          'InvalidRollbackTarget',
        );
      }
      if (sameMemory(current, target)) return { noop: true, changes: [] };
      const reason = `rollback to v${input.toVersion}: ${input.reason}`;
      const ops: NoteOp[] = [
        {
          op: 'newVersion',
          action: 'rollback',
          noteId: input.noteId,
          expectedVersion: current.version,
          targetVersion: input.toVersion,
          reason,
        },
      ];
      const superseded = await withTenant(deps.db, input.tenantId, (tx) =>
        selectSupersededBy(tx, { noteId: input.noteId }),
      );
      for (const s of superseded) {
        // Only supersessions written after the target version belong to what is rolled back.
        if (s.createdAt > target.createdAt && s.version > 1) {
          ops.push({
            op: 'newVersion',
            action: 'rollback',
            noteId: s.noteId,
            expectedVersion: s.version,
            targetVersion: s.version - 1,
            reason: `restored: ${reason}`,
          });
        }
      }
      const result = await applyNoteBatch(deps.db, {
        tenantId: input.tenantId,
        runId: rollbackNoteBatchRunId(input.requestId),
        batchNo: 0,
        actor: input.operator,
        ops,
      });
      return {
        noop: false,
        changes: result.changes.map((c) => ({ noteId: c.noteId, fromVersion: c.fromVersion, toVersion: c.toVersion })),
      };
    }),
  };
}
