import type { Proposal } from '../contracts/episode.ts';
import type { NoteOp } from '../db/index.ts';

/** Proposal → the note store's operation. New notes get their ids here, before storage, so retries reuse them. */
export function toNoteOp(p: Proposal): NoteOp {
  const reason = `${p.finding}: ${p.reason}`.slice(0, 2000);
  if (p.op === 'create' || (p.op === 'quarantine' && p.expectedVersion === undefined)) {
    return {
      op: 'create',
      noteId: p.noteId as string,
      content: p.content,
      status: p.op === 'quarantine' ? 'quarantined' : 'active',
      reason,
    };
  }
  const action = p.op === 'quarantine' ? 'quarantine' : p.op;
  return {
    op: 'newVersion',
    action,
    noteId: p.noteId as string,
    expectedVersion: p.expectedVersion as number,
    changes: p.content,
    reason,
    ...(p.supersededBy ? { supersededBy: p.supersededBy } : {}),
  };
}
