import type { SourceKind } from '../src/contracts/note.ts';

/** Starting confidence by where a note's evidence came from. */
export const INITIAL_CONFIDENCE: Record<SourceKind, number> = {
  user_requirement: 0.9,
  user_correction: 0.9,
  user_statement: 0.7,
  approval: 0.85,
  tool_fact: 0.8,
  inference: 0.5,
};

/** The most confidence repeated confirmation can earn; an inference never passes 0.6. */
export const CONFIDENCE_CAP: Record<SourceKind, number> = {
  user_requirement: 0.98,
  user_correction: 0.98,
  user_statement: 0.9,
  approval: 0.95,
  tool_fact: 0.95,
  inference: 0.6,
};

/** Each independent confirmation closes this share of the gap to the cap. @default 0.25 */
export const CONFIRMATION_GAIN = 0.25;

/** A contradiction multiplies confidence by this factor. @default 0.6 */
export const CONTRADICTION_FACTOR = 0.6;

export function initialConfidence(source: SourceKind): number {
  return INITIAL_CONFIDENCE[source];
}

export function confirm(confidence: number, source: SourceKind): number {
  const cap = CONFIDENCE_CAP[source];
  return Math.min(cap, confidence + (cap - confidence) * CONFIRMATION_GAIN);
}

export function contradict(confidence: number): number {
  return confidence * CONTRADICTION_FACTOR;
}

export function withinCap(confidence: number, source: SourceKind): boolean {
  return confidence >= 0 && confidence <= CONFIDENCE_CAP[source];
}
