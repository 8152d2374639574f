import type { NoteContent } from '../src/contracts/note.ts';
import { relate } from './lifecycle-match.ts';

/**
 * What a rollback must keep true of the notes it brings back: recall never sees two active
 * notes that contradict each other in one slot. Notes compare as consolidation compares them
 * (`relate`: by slot where both have a structure, by words otherwise), in one scope and kind.
 */
export interface SlotNote {
  noteId: string;
  content: NoteContent;
}

/** Either note, taken as the fresh one, contradicts the other in their shared scope and kind. */
export function contradictInSlot(a: NoteContent, b: NoteContent): boolean {
  if (a.scope.level !== b.scope.level || a.scope.key !== b.scope.key || a.kind !== b.kind) return false;
  return relate(a, b) === 'contradicts' || relate(b, a) === 'contradicts';
}

/** The notes of `others` (another id) that `note` contradicts, in the order given. */
export function contradictedBy(note: SlotNote, others: readonly SlotNote[]): string[] {
  return others
    .filter((o) => o.noteId !== note.noteId && contradictInSlot(note.content, o.content))
    .map((o) => o.noteId);
}

/**
 * Notes a cascade would restore, kept only while each stands with the active set and the ones
 * kept before it: a restored note that would contradict an active one stays where it is.
 */
export function restorable(
  candidates: readonly SlotNote[],
  active: readonly SlotNote[],
): { restore: string[]; blocked: Array<{ noteId: string; by: string }> } {
  const standing = [...active];
  const restore: string[] = [];
  const blocked: Array<{ noteId: string; by: string }> = [];
  for (const c of candidates) {
    const [by] = contradictedBy(c, standing);
    if (by === undefined) {
      restore.push(c.noteId);
      standing.push(c);
    } else blocked.push({ noteId: c.noteId, by });
  }
  return { restore, blocked };
}
