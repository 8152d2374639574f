import { slotKey, type NoteStructure } from '../src/contracts/note-structure.ts';
import { relateBySlot } from './lifecycle-match.ts';

/**
 * Conflicts settled before injection. An agent must never read two active notes of one slot
 * (subject, attribute, conditions) that restate or contradict each other — "u-dan prefers aisle
 * seats" beside "u-dan prefers window seats" tells it nothing. The consolidation's slot rule
 * (`relateBySlot`) says which pairs these are: the same value and polarity restate; the opposite
 * polarity, or another value of an attribute that holds one value at a time, contradict. Notes
 * of a slot that accumulates values (places someone went to) are not in conflict.
 *
 * A note that was contradicted keeps its standing only while its confidence stays high: below
 * the floor it is left out of recall (consolidation retires it later, at a lower confidence, see
 * lifecycle-contradiction.ts); above it, it is returned and marked with when it was contradicted.
 */

/** Contradicted notes below this confidence are not recalled. A user's correction (0.9) survives one contradiction (0.54), not two. @default 0.5 */
export const CONTRADICTED_RECALL_FLOOR = 0.5;

export type RecallStanding = 'clear' | 'contradicted' | 'left_out';

export function recallStanding(note: {
  contradictedAt?: string | null | undefined;
  confidence: number;
}): RecallStanding {
  if (!note.contradictedAt) return 'clear';
  return note.confidence < CONTRADICTED_RECALL_FLOOR ? 'left_out' : 'contradicted';
}

/** Whether two notes must not both be returned: their structures share a slot and restate or contradict. */
export function slotConflict(a: NoteStructure | null | undefined, b: NoteStructure | null | undefined): boolean {
  if (!a || !b) return false;
  return relateBySlot(a, b) !== 'unrelated';
}

/**
 * Best first in, best first out: each item is kept unless a kept item conflicts with it, in
 * which case it is listed under that item (the best-ranked of a slot wins). Only items of one
 * slot can conflict, so each is compared with the kept items of its own slot (in the order they
 * were kept) and every slot key is computed once: comparing every pair cost recall several
 * milliseconds of phrase normalizing per question.
 */
export function settleSlots<T>(
  ranked: readonly T[],
  structureOf: (item: T) => NoteStructure | null | undefined,
): Array<{ kept: T; suppressed: T[] }> {
  const out: Array<{ kept: T; suppressed: T[] }> = [];
  const keptBySlot = new Map<string, Array<{ kept: T; suppressed: T[] }>>();
  for (const item of ranked) {
    const structure = structureOf(item);
    const slot = structure ? slotKey(structure) : undefined;
    const sameSlot = slot === undefined ? [] : (keptBySlot.get(slot) ?? []);
    const winner = sameSlot.find((o) => slotConflict(structureOf(o.kept), structure));
    if (winner) {
      winner.suppressed.push(item);
      continue;
    }
    const entry = { kept: item, suppressed: [] };
    out.push(entry);
    if (slot !== undefined) keptBySlot.set(slot, [...sameSlot, entry]);
  }
  return out;
}
