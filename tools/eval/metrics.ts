import { nearestRank } from '../../src/stats.ts';
import type { EvalQuery, FailedRunOutcome, QueryOutcome, RetrievedItem } from './types.ts';

/**
 * Metric functions over one query and one method's outcome. Each returns `undefined` when the
 * metric does not apply to the query (no gold evidence, not an update question…), so a mean is
 * taken over the queries it applies to and never dilutes it with zeros.
 *
 * Items are used as the method returned them, best first: a tie in score keeps the method's order.
 */

/** Evidence covered by the top k, as a fraction and as the `any` / `all` hit rates. */
interface CoverageAtK {
  /** Share of the gold ids covered, 0..1. */
  fraction: number;
  /** 1 when at least one gold id is covered. */
  any: number;
  /** 1 when every gold id is covered. */
  all: number;
}

export function topK(items: readonly RetrievedItem[], k: number): readonly RetrievedItem[] {
  return items.slice(0, Math.max(0, k));
}

function coverage(gold: ReadonlySet<string>, found: ReadonlySet<string>): CoverageAtK | undefined {
  if (gold.size === 0) return undefined;
  let covered = 0;
  for (const id of gold) if (found.has(id)) covered += 1;
  return { fraction: covered / gold.size, any: covered > 0 ? 1 : 0, all: covered === gold.size ? 1 : 0 };
}

/** The dataset ids the top k rest on; an id cited by several items counts once. */
function coveredIds(outcome: QueryOutcome, k: number, of: (item: RetrievedItem) => readonly string[]): Set<string> {
  return new Set(topK(outcome.items, k).flatMap(of));
}

/** Evidence recall@k: the query's gold evidence against the union of goldIds of the top k. */
export function evidenceRecall(query: EvalQuery, outcome: QueryOutcome, k: number): CoverageAtK | undefined {
  return coverage(
    new Set(query.goldEvidence),
    coveredIds(outcome, k, (item) => item.goldIds),
  );
}

/**
 * The sessions holding a query's gold evidence. Gold ids the map does not know (a dataset's
 * evidence id with no matching record) are left out: their session is unknown.
 */
export function goldSessionsOf(query: EvalQuery, sessionOf: ReadonlyMap<string, string>): Set<string> {
  const sessions = new Set<string>();
  for (const id of query.goldEvidence) {
    const session = sessionOf.get(id);
    if (session !== undefined) sessions.add(session);
  }
  return sessions;
}

/** Session recall@k: the gold sessions against the union of goldSessions of the top k (`all` is there too). */
export function sessionRecall(
  goldSessions: ReadonlySet<string>,
  outcome: QueryOutcome,
  k: number,
): CoverageAtK | undefined {
  return coverage(
    goldSessions,
    coveredIds(outcome, k, (item) => item.goldSessions),
  );
}

/** 1 when the top k holds memory that rests on a record after the cutoff (it should not exist yet). */
export function recalledAfterCutoff(outcome: QueryOutcome, k: number): number {
  return topK(outcome.items, k).some((item) => item.afterCutoff) ? 1 : 0;
}

/**
 * For a question whose gold evidence lies entirely after the cutoff (nothing before it can
 * answer it): 1 when the method answered anyway instead of abstaining.
 */
export function answeredUnknowable(outcome: QueryOutcome, unknowable: boolean): number | undefined {
  if (!unknowable) return undefined;
  return outcome.abstained ? 0 : 1;
}

/** For an unanswerable question: 1 when the method abstained (the right call). */
export function abstainedOnUnanswerable(query: EvalQuery, outcome: QueryOutcome): number | undefined {
  if (!query.unanswerable) return undefined;
  return outcome.abstained ? 1 : 0;
}

/** For an answerable question: 1 when the method abstained (a false abstention). */
export function falseAbstention(query: EvalQuery, outcome: QueryOutcome): number | undefined {
  if (query.unanswerable) return undefined;
  return outcome.abstained ? 1 : 0;
}

/** Knowledge-update order in the top k; see {@link updateOrder}. */
interface UpdateOrderAtK {
  /**
   * 1 when the updated information ranks above the original (or only it is found); undefined
   * when the update is told in the original's own records (one message holds both: no order).
   */
  ordered: number | undefined;
  /** 1 when the updated information is in the top k at all. */
  updatedFound: number;
}

/** 0-based rank of the first of the top k that covers any of `ids`. */
function bestRank(items: readonly RetrievedItem[], ids: ReadonlySet<string>): number | undefined {
  const rank = items.findIndex((item) => item.goldIds.some((id) => ids.has(id)));
  return rank === -1 ? undefined : rank;
}

/**
 * BEAM knowledge updates: the updated information should rank strictly above the original.
 * One item covering both ties with itself and does not count as ordered. When every record of
 * the update is one of the original's (the dataset names one message for both), no order can
 * exist: only whether it is found is scored.
 */
export function updateOrder(query: EvalQuery, outcome: QueryOutcome, k: number): UpdateOrderAtK | undefined {
  if (!query.update || query.update.updated.length === 0) return undefined;
  const items = topK(outcome.items, k);
  const originalIds = new Set(query.update.original);
  const updated = bestRank(items, new Set(query.update.updated));
  const original = bestRank(items, originalIds);
  const oneMessage = query.update.updated.every((id) => originalIds.has(id));
  if (updated === undefined) return { ordered: oneMessage ? undefined : 0, updatedFound: 0 };
  if (oneMessage) return { ordered: undefined, updatedFound: 1 };
  const ordered = original === undefined || updated < original;
  return { ordered: ordered ? 1 : 0, updatedFound: 1 };
}

/** Context tokens the top k add to the agent's prompt. */
export function contextTokens(outcome: QueryOutcome, k: number): number {
  return topK(outcome.items, k).reduce((sum, item) => sum + item.tokens, 0);
}

/**
 * `nearestRank` from src/stats.ts, except that no values give undefined: a method without
 * outcomes reports no latency instead of failing the summary. p outside 0..100 still throws.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  return values.length === 0 ? undefined : nearestRank(values, p);
}

/** Arithmetic mean of the values a metric produced, and how many there were (null when none). */
export interface Mean {
  mean: number | null;
  n: number;
  /** The values' sample standard deviation (from two values on), where the metric keeps it (`meanAndSpread`). */
  sd?: number;
}

export function mean(values: readonly (number | undefined)[]): Mean {
  const present = values.filter((v): v is number => v !== undefined);
  if (present.length === 0) return { mean: null, n: 0 };
  return { mean: present.reduce((sum, v) => sum + v, 0) / present.length, n: present.length };
}

/** `mean` with the values' sample standard deviation, which the interval of a difference of two means needs. */
export function meanAndSpread(values: readonly (number | undefined)[]): Mean {
  const m = mean(values);
  if (m.mean === null || m.n < 2) return m;
  const center = m.mean;
  const squares = values.reduce<number>((sum, v) => (v === undefined ? sum : sum + (v - center) ** 2), 0);
  return { ...m, sd: Math.sqrt(squares / (m.n - 1)) };
}

/**
 * Half the width of the 95% interval of `b.mean − a.mean` (normal approximation, the two samples
 * independent: 1.96 √(s²ₐ/nₐ + s²ᵦ/nᵦ)); undefined unless both keep their spread.
 */
export function differenceInterval95(a: Mean, b: Mean): number | undefined {
  if (a.sd === undefined || b.sd === undefined) return undefined;
  return 1.96 * Math.sqrt(a.sd ** 2 / a.n + b.sd ** 2 / b.n);
}

/** A step and agent a failed run is attributed to, by Nocturne or by a baseline. */
export interface Attribution {
  step?: number;
  agent?: string;
}

/** How well attributions match the gold mistake step and agent of failed runs. */
export interface AttributionAccuracy {
  /** Attributed step equals the gold mistake step, over runs with a gold step. */
  stepExact: Mean;
  /** Attributed step within one step of the gold one. */
  stepWithinOne: Mean;
  /** Attributed agent equals the gold mistake agent, over runs with a gold agent. */
  agent: Mean;
}

/**
 * Attribution accuracy of `attribute` over failed runs. A run with a gold label but no
 * attribution counts as wrong: saying nothing is not a correct answer.
 */
export function attributionAccuracy(
  runs: readonly FailedRunOutcome[],
  attribute: (run: FailedRunOutcome) => Attribution,
): AttributionAccuracy {
  const withStep = runs.filter((run) => run.mistakeStep !== undefined);
  const withAgent = runs.filter((run) => run.mistakeAgent !== undefined);
  const distance = (run: FailedRunOutcome): number | undefined => {
    const step = attribute(run).step;
    return step === undefined ? undefined : Math.abs(step - (run.mistakeStep as number));
  };
  return {
    stepExact: mean(withStep.map((run) => (distance(run) === 0 ? 1 : 0))),
    stepWithinOne: mean(withStep.map((run) => ((distance(run) ?? Infinity) <= 1 ? 1 : 0))),
    agent: mean(withAgent.map((run) => (attribute(run).agent === run.mistakeAgent ? 1 : 0))),
  };
}

/** What Nocturne itself attributes a failed run to. */
export function nocturneAttribution(run: FailedRunOutcome): Attribution {
  return { step: run.attributedStep, agent: run.attributedAgent };
}

/** Failed-run yield: share of failed runs consolidation drew at least one note from. */
export function failedRunYield(runs: readonly FailedRunOutcome[]): Mean {
  return mean(runs.map((run) => (run.notes >= 1 ? 1 : 0)));
}

/**
 * Share of failed runs that yield a lesson about the failure itself (`explainsFailure` in
 * failed-runs.ts), not only facts or preferences stated along the way. An outcome without the
 * `explained` flag (written before it existed) counts when it names a step.
 */
export function failureLessonYield(runs: readonly FailedRunOutcome[]): Mean {
  return mean(runs.map((run) => ((run.explained ?? run.attributedStep !== undefined) ? 1 : 0)));
}
