import type { NoteVersion } from '../contracts/note.ts';

/**
 * What makes two versions "the same memory": what recall would return from them. Both
 * rollbacks (of a note, of a run) use it, so they agree on what a no-op is.
 */
export function sameMemory(a: NoteVersion, b: NoteVersion): boolean {
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
