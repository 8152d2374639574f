import type { SourceKind } from '../src/contracts/note.ts';

/**
 * Who may overrule whom. A tool reports what the system it fronts does (an error demanding a
 * manager approval id is authoritative), so a user's contradicting claim does not override it;
 * what people say outranks what the engine only inferred.
 */
export const SOURCE_AUTHORITY: Record<SourceKind, number> = {
  tool_fact: 3,
  user_correction: 2,
  user_requirement: 2,
  user_statement: 2,
  approval: 2,
  inference: 1,
};

/** How much one piece of evidence of each source weighs when authority and recency tie. */
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
  decidedBy: 'authority' | 'recency' | 'evidence' | 'confidence' | 'id';
};

/**
 * Two notes in one scope disagree: the more authoritative source wins, then the more recent
 * observation (a changed fact replaces the old one), then stronger evidence (source rank ×
 * independent count), then higher confidence; the loser is superseded, never deleted. The final
 * tie-break on id keeps the decision deterministic.
 */
export function resolveConflict(a: Contender, b: Contender): ConflictDecision {
  const authority = (c: Contender) => SOURCE_AUTHORITY[c.sourceKind];
  const strength = (c: Contender) => SOURCE_RANK[c.sourceKind] * Math.max(1, c.independentSources);
  const decide = (aWins: boolean, decidedBy: ConflictDecision['decidedBy']): ConflictDecision =>
    aWins ? { winner: a.id, loser: b.id, decidedBy } : { winner: b.id, loser: a.id, decidedBy };
  if (authority(a) !== authority(b)) return decide(authority(a) > authority(b), 'authority');
  if (a.observedAt.getTime() !== b.observedAt.getTime()) return decide(a.observedAt > b.observedAt, 'recency');
  if (strength(a) !== strength(b)) return decide(strength(a) > strength(b), 'evidence');
  if (a.confidence !== b.confidence) return decide(a.confidence > b.confidence, 'confidence');
  return decide(a.id < b.id, 'id');
}
