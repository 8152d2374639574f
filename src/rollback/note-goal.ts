import { contentOf, type NoteContent, type NoteStatus, type NoteVersion } from '../contracts/note.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { ERASED_CLAIM, type NoteOp } from '../db/index.ts';
import { PermanentFailure } from '../ports.ts';
import { sameMemory } from './same-memory.ts';

/** Where the operator wants the note: back at an earlier version, or out of recall. */
export type RollbackGoal =
  { kind: 'version'; target: NoteVersion } | { kind: 'status'; action: 'retire' | 'quarantine'; status: NoteStatus };

export interface GoalRequest {
  tenantId: string;
  noteId: string;
  toVersion?: number | undefined;
  action?: 'rollback' | 'retire' | 'quarantine' | undefined;
}

/**
 * The goal an input names. `toVersion` absent means the version before the current one; a
 * version-1 note has none, so going back means retiring it, as `toVersion: 0` does, and a note
 * already retired or quarantined stays so (reviving one takes a named version).
 */
export function rollbackGoal(
  input: GoalRequest,
  versions: NoteVersion[],
): { current: NoteVersion; goal: RollbackGoal } {
  const current = versions.at(-1);
  if (!current)
    throw new PermanentFailure(`note ${input.noteId} not found in tenant ${input.tenantId}`, FailureType.NoteNotFound);
  // Erasure is final: its versions are scrubbed, and a rollback must not revive a subject's data.
  if (current.status === 'erased')
    throw new PermanentFailure(`note ${input.noteId} was erased and cannot be rolled back`, FailureType.NoteErased);
  if (input.action === 'quarantine')
    return { current, goal: { kind: 'status', action: 'quarantine', status: 'quarantined' } };
  // A note already out of recall stays out unless a version is named: the same input twice is one rollback.
  const outOfRecall = current.status === 'retired' || current.status === 'quarantined';
  const toVersion = input.action === 'retire' ? 0 : (input.toVersion ?? (outOfRecall ? 0 : current.version - 1));
  if (toVersion === 0) return { current, goal: { kind: 'status', action: 'retire', status: 'retired' } };
  const target = versions.find((v) => v.version === toVersion);
  if (!target) {
    throw new PermanentFailure(
      `toVersion: note ${input.noteId} has versions 1..${current.version}, not ${toVersion}`,
      FailureType.InvalidRollbackTarget,
    );
  }
  // An older version that cited an erased subject was scrubbed: there is nothing to return to.
  if (target.claim === ERASED_CLAIM)
    throw new PermanentFailure(
      `version ${toVersion} of note ${input.noteId} was scrubbed by an erasure and cannot be restored`,
      FailureType.NoteErased,
    );
  return { current, goal: { kind: 'version', target } };
}

/** The status the note ends with. */
export const endStatus = (goal: RollbackGoal): NoteStatus =>
  goal.kind === 'status' ? goal.status : goal.target.status;

/** The content the note ends with (what contradictions are judged on). */
export const endContent = (current: NoteVersion, goal: RollbackGoal): NoteContent =>
  contentOf(goal.kind === 'version' ? goal.target : current);

/** The operation that reaches the goal, or undefined when the note is already there (a no-op). */
export function goalOp(current: NoteVersion, goal: RollbackGoal, reason: string): NoteOp | undefined {
  const base = { op: 'newVersion' as const, noteId: current.noteId, expectedVersion: current.version };
  if (goal.kind === 'status') {
    if (current.status === goal.status) return undefined;
    return { ...base, action: goal.action, reason: `${goal.action}: ${reason}` };
  }
  if (sameMemory(current, goal.target)) return undefined;
  return {
    ...base,
    action: 'rollback',
    targetVersion: goal.target.version,
    reason: `rollback to v${goal.target.version}: ${reason}`,
  };
}
