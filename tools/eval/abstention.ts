import { nearestRank } from '../../src/stats.ts';
import type { EvalCase, EvalMethod, QueryOutcome } from './types.ts';

/**
 * Share of answerable questions a method may decline. Scores of different methods live on
 * different scales (BM25 is unbounded, cosine of e5 vectors is compressed near 0.8, Nocturne's
 * hybrid score is a product with a prior), so one fixed threshold would favour one of them.
 * Each method's threshold is set where it declines this share of answerable questions; how
 * many unanswerable ones it then declines shows how well its scores separate the two.
 * @default 0.1
 */
const TOLERATED_FALSE_ABSTENTION = 0.1;

export interface AbstentionThreshold {
  method: EvalMethod;
  /** Top-1 scores below this abstain; null: the method never scores (it abstains only when empty). */
  threshold: number | null;
}

/** Methods whose scores carry no relevance (recent history ranks by time, no-memory returns nothing). */
const UNSCORED: ReadonlySet<EvalMethod> = new Set(['no-memory', 'recent-history']);

/**
 * Sets each method's threshold from its top-1 scores on answerable questions and marks the
 * outcomes that fall below it (or are empty) as abstained. Returns the thresholds for the report.
 */
export function calibrateAbstention(cases: readonly EvalCase[], outcomes: QueryOutcome[]): AbstentionThreshold[] {
  const answerable = new Set(
    cases.flatMap((c) => c.queries.filter((q) => !q.unanswerable).map((q) => `${c.caseId}\u0000${q.queryId}`)),
  );
  const methods = [...new Set(outcomes.map((o) => o.method))];
  return methods.map((method) => {
    const mine = outcomes.filter((o) => o.method === method);
    // The best score in the answer: a fused answer's first item is not always its best match.
    const top = (o: QueryOutcome) => (o.items.length === 0 ? undefined : Math.max(...o.items.map((i) => i.score)));
    const scores = mine
      .filter((o) => answerable.has(`${o.caseId}\u0000${o.queryId}`))
      .map(top)
      .filter((s): s is number => s !== undefined);
    const threshold = UNSCORED.has(method) || scores.length === 0 ? null : quantile(scores, TOLERATED_FALSE_ABSTENTION);
    for (const o of mine) {
      const best = top(o);
      o.abstained = best === undefined || (threshold !== null && best < threshold);
    }
    return { method, threshold };
  });
}

/** `nearestRank` from src/stats.ts on the 0..1 scale of q (throws for no values, like it). */
export function quantile(values: readonly number[], q: number): number {
  return nearestRank(values, q * 100);
}
