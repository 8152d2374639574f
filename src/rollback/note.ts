import type { NoteVersion } from '../contracts/note.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { rollbackNoteBatchRunId } from '../contracts/workflow-ids.ts';
import { applyNoteBatch, getNoteHistory, selectSupersededBy, withTenant, type NoteOp } from '../db/index.ts';
import { PermanentFailure, type Ports } from '../ports.ts';
import { sameMemory } from './same-memory.ts';

export interface RollbackNoteInput {
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

/**
 * Writes a new version equal to `toVersion` (history is never rewritten) and restores the
 * notes that the rolled-back versions superseded. Rolling back to what is already current
 * changes nothing, so a repeated rollback is a no-op.
 */
export async function rollbackNote(ports: Pick<Ports, 'db'>, input: RollbackNoteInput): Promise<RollbackResult> {
  const { versions } = await getNoteHistory(ports.db, input);
  const { current, target } = rollbackTarget(input, versions);
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
    ...(await restoreSuperseded(ports, input, target, reason)),
  ];
  const result = await applyNoteBatch(ports.db, {
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
}

function rollbackTarget(
  input: RollbackNoteInput,
  versions: NoteVersion[],
): { current: NoteVersion; target: NoteVersion } {
  const current = versions.at(-1);
  if (!current)
    throw new PermanentFailure(`note ${input.noteId} not found in tenant ${input.tenantId}`, FailureType.NoteNotFound);
  // Erasure is final: its versions are scrubbed, and a rollback must not revive a subject's data.
  if (current.status === 'erased')
    throw new PermanentFailure(`note ${input.noteId} was erased and cannot be rolled back`, FailureType.NoteErased);
  const target = versions.find((v) => v.version === input.toVersion);
  if (!target) {
    throw new PermanentFailure(
      `toVersion: note ${input.noteId} has versions 1..${current.version}, not ${input.toVersion}`,
      FailureType.InvalidRollbackTarget,
    );
  }
  return { current, target };
}

/** Notes the rolled-back versions superseded go back to the version before their supersession. */
async function restoreSuperseded(
  ports: Pick<Ports, 'db'>,
  input: RollbackNoteInput,
  target: NoteVersion,
  reason: string,
): Promise<NoteOp[]> {
  const superseded = await withTenant(ports.db, input.tenantId, (tx) =>
    selectSupersededBy(tx, { noteId: input.noteId }),
  );
  // Only supersessions written after the target version belong to what is rolled back.
  return superseded
    .filter((s) => s.createdAt > target.createdAt && s.version > 1)
    .map((s): NoteOp => ({
      op: 'newVersion',
      action: 'rollback',
      noteId: s.noteId,
      expectedVersion: s.version,
      targetVersion: s.version - 1,
      reason: `restored: ${reason}`,
    }));
}
