import { createHash, randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { EvidenceRef, NoteContent } from '../../src/contracts/note.ts';
import type { NoteOp } from '../../src/db/index.ts';

/** A tenant id no earlier run used, so tests against a long-lived database rerun cleanly. */
export function freshTenant(label = 't'): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

export function freshNoteId(): string {
  return ulid();
}

export function evidenceRef(seed = 'record'): EvidenceRef {
  return {
    recordId: ulid(),
    objectKey: `raw/tenant=t/date=2026-01-01/test-000001.jsonl.gz`,
    line: 1 + (seed.length % 7),
    contentHash: createHash('sha256').update(seed).digest('hex'),
  };
}

export function noteContent(overrides: Partial<NoteContent> = {}): NoteContent {
  return {
    scope: { level: 'user', key: 'user-1' },
    kind: 'preference',
    claim: 'The user prefers metric units in every answer.',
    evidence: [evidenceRef('metric')],
    sourceKind: 'user_correction',
    confidence: 0.9,
    importance: 0.5,
    validFrom: '2026-01-01T00:00:00.000Z',
    sourceCount: 1,
    lastConfirmedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function createOp(noteId = freshNoteId(), overrides: Partial<NoteContent> = {}): NoteOp {
  return { op: 'create', noteId, content: noteContent(overrides), reason: 'learned from a correction' };
}
