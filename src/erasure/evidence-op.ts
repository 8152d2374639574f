import { createHash } from 'node:crypto';
import type { EvidenceRef, NoteVersion } from '../contracts/note.ts';
import type { NoteOp } from '../db/index.ts';

/** A short, stable digest: the batch keys of an erasure's note writes, so a retry reuses them. */
export const shortHash = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** A new version with other evidence, keeping status and (for superseded notes) the successor. */
export function evidenceOp(note: NoteVersion, evidence: EvidenceRef[], reason: string): NoteOp {
  const changes = {
    evidence,
    sourceCount: Math.max(1, Math.min(note.sourceCount, new Set(evidence.map((e) => e.recordId)).size)),
  };
  return note.status === 'superseded' && note.supersededBy
    ? {
        op: 'newVersion',
        action: 'supersede',
        noteId: note.noteId,
        expectedVersion: note.version,
        supersededBy: note.supersededBy,
        changes,
        reason,
      }
    : { op: 'newVersion', action: 'revise', noteId: note.noteId, expectedVersion: note.version, changes, reason };
}
