import { recallStanding, settleSlots } from '../../policies/recall-conflicts.ts';
import type { AssembledItem } from './assemble.ts';
import type { CandidateRow } from './queries.ts';

/** Contradicted notes whose confidence fell below the floor are not offered; returns the rest and how many went. */
export function withoutDiscredited(rows: readonly CandidateRow[]): { rows: CandidateRow[]; leftOut: number } {
  const kept = rows.filter((r) => recallStanding(r.version) !== 'left_out');
  return { rows: kept, leftOut: rows.length - kept.length };
}

/**
 * Settles slot conflicts among the ranked notes before injection: of two notes of one slot that
 * restate or contradict each other only the better-ranked is returned, with the other listed
 * under it as a suppressed conflict.
 */
export function settleConflicts(items: readonly AssembledItem[]): { items: AssembledItem[]; suppressed: number } {
  const settled = settleSlots(items, (i) => i.version.structure);
  return {
    items: settled.map(({ kept, suppressed }) => ({
      ...kept,
      conflicts: suppressed.map((s) => ({
        noteId: s.version.noteId,
        version: s.version.version,
        claim: s.version.claim,
        confidence: s.version.confidence,
      })),
    })),
    suppressed: settled.reduce((n, s) => n + s.suppressed.length, 0),
  };
}
