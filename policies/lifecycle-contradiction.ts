import type { NoteContent } from '../src/contracts/note.ts';

/**
 * A note that keeps being contradicted: each contradiction lowers its confidence (see
 * `contradict` in confidence.ts), and once it falls below this it is retired, so recall stops
 * offering it. With the contradiction factor 0.6 a note that started at 0.9 (a user's
 * correction) goes after its third contradiction without a confirmation in between, a tool
 * fact (0.8) after its third, an inference (0.5) after its second. @default 0.25
 */
export const RETIRE_BELOW_CONFIDENCE = 0.25;

/** What a contradicting revision does to the note: it stays (downgraded), or it is retired. */
export function contradictionOutcome(
  revised: Pick<NoteContent, 'confidence' | 'contradictedAt'>,
): 'downgrade' | 'retire' {
  if (!revised.contradictedAt) return 'downgrade';
  return revised.confidence < RETIRE_BELOW_CONFIDENCE ? 'retire' : 'downgrade';
}
