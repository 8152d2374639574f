import { goldSessionsOf } from './metrics.ts';
import type { EvalCase, EvalDataset, EvalQuery, QueryOutcome } from './types.ts';

/** Keys of questions and cases, and each outcome paired with the question it answers. */

/** Identifies a question across datasets and cases. */
export function queryKey(dataset: EvalDataset, caseId: string, queryId: string): string {
  return JSON.stringify([dataset, caseId, queryId]);
}

export function caseKey(dataset: EvalDataset, caseId: string): string {
  return JSON.stringify([dataset, caseId]);
}

/**
 * Questions no memory built up to the cutoff can answer: every gold evidence record with a known
 * time was observed after it. `cutoff` may differ per case (an ISO time, or a function of the case).
 */
export function unknowableAfter(
  cases: readonly EvalCase[],
  cutoff: string | ((evalCase: EvalCase) => string | undefined),
): Set<string> {
  const keys = new Set<string>();
  for (const evalCase of cases) {
    const at = typeof cutoff === 'string' ? cutoff : cutoff(evalCase);
    if (at === undefined) continue;
    const limit = Date.parse(at);
    const observed = new Map(evalCase.records.map((r) => [r.goldId, Date.parse(r.record.observedAt)]));
    for (const query of evalCase.queries) {
      const times = query.goldEvidence.map((id) => observed.get(id)).filter((t): t is number => t !== undefined);
      if (times.length > 0 && times.every((t) => t > limit))
        keys.add(queryKey(evalCase.dataset, evalCase.caseId, query.queryId));
    }
  }
  return keys;
}

/**
 * Knowledge-update questions whose newer information no memory built up to the cutoff can hold:
 * every record of the update with a known time was observed after it. Their original is known,
 * so the question stays in recall's count; only the order of the two cannot be measured.
 */
export function updatesAfter(
  cases: readonly EvalCase[],
  cutoff: string | ((evalCase: EvalCase) => string | undefined),
): Set<string> {
  const keys = new Set<string>();
  for (const evalCase of cases) {
    const at = typeof cutoff === 'string' ? cutoff : cutoff(evalCase);
    if (at === undefined) continue;
    const limit = Date.parse(at);
    const observed = new Map(evalCase.records.map((r) => [r.goldId, Date.parse(r.record.observedAt)]));
    for (const query of evalCase.queries) {
      const times = (query.update?.updated ?? [])
        .map((id) => observed.get(id))
        .filter((t): t is number => t !== undefined);
      if (times.length > 0 && times.every((t) => t > limit))
        keys.add(queryKey(evalCase.dataset, evalCase.caseId, query.queryId));
    }
  }
  return keys;
}

/** A question with what the metrics need from its case. */
interface QueryContext {
  query: EvalQuery;
  goldSessions: Set<string>;
  unknowable: boolean;
  /** Its update lies after the cutoff (updatesAfter): the update order is not scored. */
  updateUnknowable: boolean;
}

export function indexQueries(
  cases: readonly EvalCase[],
  unknowable: ReadonlySet<string>,
  unknowableUpdates: ReadonlySet<string> = new Set(),
): Map<string, QueryContext> {
  const index = new Map<string, QueryContext>();
  for (const evalCase of cases) {
    const sessionOf = new Map(evalCase.records.map((r) => [r.goldId, r.goldSession]));
    for (const query of evalCase.queries) {
      const key = queryKey(evalCase.dataset, evalCase.caseId, query.queryId);
      if (index.has(key)) throw new Error(`duplicate query ${query.queryId} in ${evalCase.dataset}/${evalCase.caseId}`);
      index.set(key, {
        query,
        goldSessions: goldSessionsOf(query, sessionOf),
        unknowable: unknowable.has(key),
        updateUnknowable: unknowableUpdates.has(key),
      });
    }
  }
  return index;
}

export interface Scored {
  context: QueryContext;
  outcome: QueryOutcome;
}

/** Pairs each outcome with its question; an outcome for an unknown question or a repeated one is a runner bug. */
export function pairOutcomes(outcomes: readonly QueryOutcome[], queries: Map<string, QueryContext>): Scored[] {
  const seen = new Set<string>();
  return outcomes.map((outcome) => {
    const key = queryKey(outcome.dataset, outcome.caseId, outcome.queryId);
    const context = queries.get(key);
    if (!context)
      throw new Error(`outcome for unknown query ${outcome.queryId} in ${outcome.dataset}/${outcome.caseId}`);
    const perMethod = JSON.stringify([key, outcome.method]);
    if (seen.has(perMethod))
      throw new Error(
        `two outcomes of ${outcome.method} for query ${outcome.queryId} in ${outcome.dataset}/${outcome.caseId}`,
      );
    seen.add(perMethod);
    return { context, outcome };
  });
}
