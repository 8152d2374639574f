import {
  abstainedOnUnanswerable,
  answeredUnknowable,
  attributionAccuracy,
  contextTokens,
  evidenceRecall,
  failedRunYield,
  failureLessonYield,
  falseAbstention,
  goldSessionsOf,
  mean,
  nocturneAttribution,
  percentile,
  recalledAfterCutoff,
  sessionRecall,
  updateOrder,
  type Attribution,
  type AttributionAccuracy,
  type Mean,
} from './metrics.ts';
import {
  EVAL_DATASETS,
  EVAL_METHODS,
  type EvalCase,
  type EvalDataset,
  type EvalMethod,
  type EvalQuery,
  type FailedRunOutcome,
  type QueryOutcome,
} from './types.ts';

/**
 * Run metadata the runner adds to the summary (it is also the head of the `--json` output).
 * The named fields are the ones the report prints; anything else is kept as given.
 */
export interface EvalMeta {
  datasetPaths?: Partial<Record<EvalDataset, string>>;
  /** The temporal cutoff consolidation ran up to, as the runner describes it. */
  cutoff?: string;
  embedder?: string;
  commit?: string;
  startedAt?: string;
  /** Wall-clock seconds per phase (archive, consolidate, query…). */
  seconds?: Record<string, number>;
  [key: string]: unknown;
}

/** Every query metric at one k, as means over the queries each applies to. */
export interface AtKSummary {
  k: number;
  /** Fractional evidence recall@k, and the any / all hit rates (queries with gold evidence). */
  evidenceRecall: Mean;
  evidenceAny: Mean;
  evidenceAll: Mean;
  /** Session recall@k over the sessions of the gold evidence. */
  sessionRecall: Mean;
  sessionAny: Mean;
  /** Share of outcomes whose top k holds memory from after the cutoff (should be 0). */
  recalledAfterCutoff: Mean;
  /** Knowledge updates: updated information ranked above the original / found at all. */
  updateOrdered: Mean;
  updateFound: Mean;
  /** Context tokens of the top k per query. */
  tokens: Mean;
}

/** Nearest-rank latency percentiles, null when there were no outcomes. */
interface LatencySummary {
  p50: number | null;
  p95: number | null;
  n: number;
}

/** One method's metrics over a set of queries (a dataset, or one of its categories). */
export interface MetricBlock {
  /** Outcomes counted. */
  queries: number;
  atK: AtKSummary[];
  /** Unanswerable questions the method abstained on. */
  abstainedOnUnanswerable: Mean;
  /** Answerable questions the method abstained on. */
  falseAbstention: Mean;
  /** Questions answerable only from after the cutoff that the method answered anyway. */
  answeredUnknowable: Mean;
  latencyMs: LatencySummary;
}

interface CategorySummary extends MetricBlock {
  category: string;
}

export interface MethodSummary {
  method: EvalMethod;
  overall: MetricBlock;
  /** Categories in code-point order of their names. */
  byCategory: CategorySummary[];
}

export interface FailedRunSummary {
  runs: number;
  /** Failed-run yield: runs consolidation drew at least one note from. */
  withNotes: Mean;
  /** Runs that yielded a note explaining the failure (it names a step). */
  withFailureLesson: Mean;
  /** Nocturne's attributed step and agent against the gold ones. */
  nocturne: AttributionAccuracy;
  /** Baseline: blame the first step after step 0 and the actor of that step. */
  firstAgentStep: AttributionAccuracy;
}

export interface DatasetSummary {
  dataset: EvalDataset;
  cases: number;
  /** Questions across the dataset's cases. */
  queries: number;
  /** Methods with outcomes, in EVAL_METHODS order. */
  methods: MethodSummary[];
  failedRuns: FailedRunSummary | null;
}

export interface EvalSummary {
  meta: EvalMeta;
  /** The ks every metric was computed at, ascending. */
  ks: number[];
  /** The k the report's per-category table and single-k columns use. */
  headlineK: number;
  /** Datasets in EVAL_DATASETS order. */
  datasets: DatasetSummary[];
}

interface SummarizeInput {
  cases: readonly EvalCase[];
  outcomes: readonly QueryOutcome[];
  failedRuns: readonly FailedRunOutcome[];
  ks: readonly number[];
  /** @default 10 when among ks, else the largest k */
  headlineK?: number;
  /** {@link queryKey}s of questions whose gold evidence lies entirely after the cutoff. */
  unknowable?: ReadonlySet<string>;
  meta?: EvalMeta;
}

/** Identifies a question across datasets and cases. */
export function queryKey(dataset: EvalDataset, caseId: string, queryId: string): string {
  return JSON.stringify([dataset, caseId, queryId]);
}

function caseKey(dataset: EvalDataset, caseId: string): string {
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

/** A question with what the metrics need from its case. */
interface QueryContext {
  query: EvalQuery;
  goldSessions: Set<string>;
  unknowable: boolean;
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

function indexQueries(cases: readonly EvalCase[], unknowable: ReadonlySet<string>): Map<string, QueryContext> {
  const index = new Map<string, QueryContext>();
  for (const evalCase of cases) {
    const sessionOf = new Map(evalCase.records.map((r) => [r.goldId, r.goldSession]));
    for (const query of evalCase.queries) {
      const key = queryKey(evalCase.dataset, evalCase.caseId, query.queryId);
      if (index.has(key)) throw new Error(`duplicate query ${query.queryId} in ${evalCase.dataset}/${evalCase.caseId}`);
      index.set(key, { query, goldSessions: goldSessionsOf(query, sessionOf), unknowable: unknowable.has(key) });
    }
  }
  return index;
}

interface Scored {
  context: QueryContext;
  outcome: QueryOutcome;
}

/** Pairs each outcome with its question; an outcome for an unknown question or a repeated one is a runner bug. */
function pairOutcomes(outcomes: readonly QueryOutcome[], queries: Map<string, QueryContext>): Scored[] {
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

function summarizeAtK(all: readonly Scored[], k: number): AtKSummary {
  // A question only answerable from after the cutoff cannot be recalled by anyone: recall is
  // measured on the others, and the held-out ones count in answeredUnknowable instead.
  const scored = all.filter((s) => !s.context.unknowable);
  const evidence = scored.map(({ context, outcome }) => evidenceRecall(context.query, outcome, k));
  const sessions = scored.map(({ context, outcome }) => sessionRecall(context.goldSessions, outcome, k));
  const updates = scored.map(({ context, outcome }) => updateOrder(context.query, outcome, k));
  return {
    k,
    evidenceRecall: mean(evidence.map((e) => e?.fraction)),
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

/**
 * The "first agent step" baseline: step 0 is the task as posed (a question, a user's first
 * message), so blame the earliest step after it, and whoever took that step.
 */
function firstAgentStepOf(evalCase: EvalCase, runId: string): Attribution {
  const run = evalCase.failedRuns.find((r) => r.runId === runId);
  if (!run) throw new Error(`failed-run outcome for unknown run ${runId} in ${evalCase.dataset}/${evalCase.caseId}`);
  let first: { step: number; actor?: string } | undefined;
  for (const record of evalCase.records) {
    if (record.goldSession !== run.goldSession || record.step === undefined || record.step <= 0) continue;
    if (!first || record.step < first.step) first = { step: record.step, actor: record.actor };
  }
  return first ? { step: first.step, agent: first.actor } : {};
}

function summarizeFailedRuns(
  runs: readonly FailedRunOutcome[],
  casesByKey: Map<string, EvalCase>,
): FailedRunSummary | null {
  if (runs.length === 0) return null;
  const baseline = (run: FailedRunOutcome): Attribution => {
    const evalCase = casesByKey.get(caseKey(run.dataset, run.caseId));
    if (!evalCase) throw new Error(`failed-run outcome for unknown case ${run.dataset}/${run.caseId}`);
    return firstAgentStepOf(evalCase, run.runId);
  };
  return {
    runs: runs.length,
    withNotes: failedRunYield(runs),
    withFailureLesson: failureLessonYield(runs),
    nocturne: attributionAccuracy(runs, nocturneAttribution),
    firstAgentStep: attributionAccuracy(runs, baseline),
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
  const scored = pairOutcomes(input.outcomes, indexQueries(input.cases, input.unknowable ?? new Set()));
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
