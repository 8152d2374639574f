import { summarizeFailedRuns } from './failed-run-summary.ts';
import {
  abstainedOnUnanswerable,
  answeredUnknowable,
  contextTokens,
  evidenceRecall,
  falseAbstention,
  mean,
  meanAndSpread,
  percentile,
  recalledAfterCutoff,
  sessionRecall,
  updateOrder,
} from './metrics.ts';
import { caseKey, indexQueries, pairOutcomes, type Scored } from './questions.ts';
import type { AtKSummary, DatasetSummary, EvalMeta, EvalSummary, MethodSummary, MetricBlock } from './summary-types.ts';
import {
  EVAL_DATASETS,
  EVAL_METHODS,
  type EvalCase,
  type EvalDataset,
  type EvalMethod,
  type FailedRunOutcome,
  type QueryOutcome,
} from './types.ts';

interface SummarizeInput {
  cases: readonly EvalCase[];
  outcomes: readonly QueryOutcome[];
  failedRuns: readonly FailedRunOutcome[];
  ks: readonly number[];
  /** @default 10 when among ks, else the largest k */
  headlineK?: number;
  /** Keys (`queryKey` in questions.ts) of questions whose gold evidence lies entirely after the cutoff. */
  unknowable?: ReadonlySet<string>;
  /** Keys of knowledge-update questions whose update lies after the cutoff (`updatesAfter`). */
  unknowableUpdates?: ReadonlySet<string>;
  meta?: EvalMeta;
}

function normalizeKs(ks: readonly number[]): number[] {
  if (ks.length === 0) throw new Error('summarize needs at least one k');
  for (const k of ks) if (!Number.isInteger(k) || k < 1) throw new Error(`k must be a positive integer, got ${k}`);
  return [...new Set(ks)].sort((a, b) => a - b);
}

function chooseHeadlineK(ks: readonly number[], requested: number | undefined): number {
  if (requested !== undefined) {
    if (!ks.includes(requested)) throw new Error(`headline k ${requested} is not among ks ${ks.join(', ')}`);
    return requested;
  }
  return ks.includes(10) ? 10 : (ks[ks.length - 1] as number);
}

function summarizeAtK(all: readonly Scored[], k: number): AtKSummary {
  // A question only answerable from after the cutoff cannot be recalled by anyone: recall is
  // measured on the others, and the held-out ones count in answeredUnknowable instead.
  const scored = all.filter((s) => !s.context.unknowable);
  const evidence = scored.map(({ context, outcome }) => evidenceRecall(context.query, outcome, k));
  const sessions = scored.map(({ context, outcome }) => sessionRecall(context.goldSessions, outcome, k));
  // An update observed after the cutoff cannot be in memory: neither its order nor whether it is found is scored.
  const updates = scored
    .filter(({ context }) => !context.updateUnknowable)
    .map(({ context, outcome }) => updateOrder(context.query, outcome, k));
  return {
    k,
    evidenceRecall: meanAndSpread(evidence.map((e) => e?.fraction)),
    evidenceAny: mean(evidence.map((e) => e?.any)),
    evidenceAll: mean(evidence.map((e) => e?.all)),
    sessionRecall: mean(sessions.map((s) => s?.fraction)),
    sessionAny: mean(sessions.map((s) => s?.any)),
    recalledAfterCutoff: mean(all.map(({ outcome }) => recalledAfterCutoff(outcome, k))),
    updateOrdered: mean(updates.map((u) => u?.ordered)),
    updateFound: mean(updates.map((u) => u?.updatedFound)),
    tokens: mean(all.map(({ outcome }) => contextTokens(outcome, k))),
  };
}

function summarizeBlock(scored: readonly Scored[], ks: readonly number[]): MetricBlock {
  const latencies = scored.map(({ outcome }) => outcome.latencyMs);
  return {
    queries: scored.length,
    atK: ks.map((k) => summarizeAtK(scored, k)),
    abstainedOnUnanswerable: mean(
      scored.map(({ context, outcome }) => abstainedOnUnanswerable(context.query, outcome)),
    ),
    falseAbstention: mean(scored.map(({ context, outcome }) => falseAbstention(context.query, outcome))),
    answeredUnknowable: mean(scored.map(({ context, outcome }) => answeredUnknowable(outcome, context.unknowable))),
    latencyMs: { p50: percentile(latencies, 50) ?? null, p95: percentile(latencies, 95) ?? null, n: latencies.length },
  };
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function summarizeMethod(method: EvalMethod, scored: readonly Scored[], ks: readonly number[]): MethodSummary {
  const categories = [...new Set(scored.map((s) => s.context.query.category))].sort(byCodePoint);
  return {
    method,
    overall: summarizeBlock(scored, ks),
    byCategory: categories.map((category) => ({
      category,
      ...summarizeBlock(
        scored.filter((s) => s.context.query.category === category),
        ks,
      ),
    })),
  };
}

function summarizeDataset(
  dataset: EvalDataset,
  input: SummarizeInput,
  scored: readonly Scored[],
  ks: readonly number[],
  casesByKey: Map<string, EvalCase>,
): DatasetSummary {
  const cases = input.cases.filter((c) => c.dataset === dataset);
  const inDataset = scored.filter((s) => s.outcome.dataset === dataset);
  const methods = EVAL_METHODS.filter((method) => inDataset.some((s) => s.outcome.method === method));
  return {
    dataset,
    cases: cases.length,
    queries: cases.reduce((sum, c) => sum + c.queries.length, 0),
    methods: methods.map((method) =>
      summarizeMethod(
        method,
        inDataset.filter((s) => s.outcome.method === method),
        ks,
      ),
    ),
    failedRuns: summarizeFailedRuns(
      input.failedRuns.filter((r) => r.dataset === dataset),
      casesByKey,
    ),
  };
}

/** Per dataset, per method, overall and per category: every metric at every k, plus failed runs. */
export function summarize(input: SummarizeInput): EvalSummary {
  const ks = normalizeKs(input.ks);
  const headlineK = chooseHeadlineK(ks, input.headlineK);
  const scored = pairOutcomes(
    input.outcomes,
    indexQueries(input.cases, input.unknowable ?? new Set(), input.unknowableUpdates),
  );
  const casesByKey = new Map(input.cases.map((c) => [caseKey(c.dataset, c.caseId), c]));
  const present = new Set<EvalDataset>([
    ...input.cases.map((c) => c.dataset),
    ...input.failedRuns.map((r) => r.dataset),
  ]);
  const datasets = EVAL_DATASETS.filter((d) => present.has(d)).map((d) =>
    summarizeDataset(d, input, scored, ks, casesByKey),
  );
  return { meta: input.meta ?? {}, ks, headlineK, datasets };
}
