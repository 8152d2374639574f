import type { AttributionAccuracy, Mean } from './metrics.ts';
import type { EvalDataset, EvalMethod } from './types.ts';

/** The shape of an evaluation's summary: what the JSON output holds and the reports print. */

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

/** One split of a dataset's cases (tuning, reporting) summarized on its own. */
export interface SplitSummary {
  name: string;
  /** 1-based positions of the split's cases that ran. */
  positions: number[];
  caseIds: string[];
  summary: DatasetSummary;
  /**
   * Each case of the split on its own, in position order: a change chosen on a split should help
   * on each of its cases, not on their sum alone (one conversation's gain is noise).
   */
  byCase: CaseSummary[];
}

/** One case (a conversation, a chat) summarized on its own. */
export interface CaseSummary {
  position: number;
  caseId: string;
  summary: DatasetSummary;
}

export interface EvalSummary {
  meta: EvalMeta;
  /** The ks every metric was computed at, ascending. */
  ks: number[];
  /** The k the report's per-category table and single-k columns use. */
  headlineK: number;
  /** Datasets in EVAL_DATASETS order. */
  datasets: DatasetSummary[];
  /** Per split of the cases that ran, where the dataset names splits (LoCoMo). */
  splits?: SplitSummary[];
}
