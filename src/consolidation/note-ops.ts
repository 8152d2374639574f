import { redactContent, redactText } from '../../policies/redaction-fields.ts';
import type { Proposal } from '../contracts/episode.ts';
import type { NoteOp } from '../db/index.ts';

/**
 * Proposal → the note store's operation. New notes get their ids here, before storage, so
 * retries reuse them. The reason and the content are redacted: both are stored with the run's
 * work and the reason in the audit log.
 */
export function toNoteOp(p: Proposal): NoteOp {
  const reason = redactText(`${p.finding}: ${p.reason}`).slice(0, 2000);
  const content = redactContent(p.content);
  if (p.op === 'create' || (p.op === 'quarantine' && p.expectedVersion === undefined)) {
    return {
      op: 'create',
      noteId: p.noteId as string,
      content,
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
    changes: content,
    reason,
    ...(p.supersededBy ? { supersededBy: p.supersededBy } : {}),
  };
}
