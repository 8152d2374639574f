import type { SourceKind } from '../src/contracts/note.ts';

/** How much one piece of evidence of each source weighs in a conflict. */
export const SOURCE_RANK: Record<SourceKind, number> = {
  user_correction: 5,
  user_requirement: 5,
  user_statement: 4,
  approval: 4,
  tool_fact: 3,
  inference: 1,
};

export interface Contender {
  id: string;
  sourceKind: SourceKind;
  /** Distinct users or sessions that back the claim. */
  independentSources: number;
  /** Latest observedAt among its evidence. */
  observedAt: Date;
  confidence: number;
}

export type ConflictDecision = {
  winner: string;
  loser: string;
  decidedBy: 'evidence' | 'recency' | 'confidence' | 'id';
};

/**
 * Two notes in one scope disagree: stronger evidence wins (source rank × independent count),
 * then the more recent observation, then higher confidence; the loser is superseded, never deleted.
 * The final tie-break on id keeps the decision deterministic.
 */
export function resolveConflict(a: Contender, b: Contender): ConflictDecision {
  const strength = (c: Contender) => SOURCE_RANK[c.sourceKind] * Math.max(1, c.independentSources);
  const decide = (aWins: boolean, decidedBy: ConflictDecision['decidedBy']): ConflictDecision =>
    aWins ? { winner: a.id, loser: b.id, decidedBy } : { winner: b.id, loser: a.id, decidedBy };
  if (strength(a) !== strength(b)) return decide(strength(a) > strength(b), 'evidence');
  if (a.observedAt.getTime() !== b.observedAt.getTime()) return decide(a.observedAt > b.observedAt, 'recency');
  if (a.confidence !== b.confidence) return decide(a.confidence > b.confidence, 'confidence');
  return decide(a.id < b.id, 'id');
}
