import type { RawRecordInput } from '../../src/contracts/raw-record.ts';

export { EVAL_DATASETS, type EvalDataset } from '../choices.ts';
import type { EvalDataset } from '../choices.ts';

/**
 * One raw record built from a dataset item, with the dataset's own id for it so gold evidence
 * (`D1:3`, a BEAM message id, a Who&When step) can be matched against what a method returns.
 * `record.tenantId` is a placeholder: the runner gives every case a fresh tenant.
 */
export interface EvalRecord {
  /** The dataset's id of this item, unique within the case (e.g. `D1:3`, `28`, `step:7`). */
  goldId: string;
  /** The dataset's session / chat batch / run / log this item belongs to (session recall@k). */
  goldSession: string;
  /** Index of the step in a run or log (tau-bench, Who&When), for step attribution. */
  step?: number;
  /** Who produced it (speaker, agent name), for agent attribution. */
  actor?: string;
  record: RawRecordInput;
}

/** A question asked of the memory after the records, with its gold answer's evidence. */
export interface EvalQuery {
  queryId: string;
  /** The dataset's category name, e.g. `multi-hop`, `knowledge_update`. */
  category: string;
  text: string;
  /** When the question is asked: after every record of the case. */
  askedAt: string;
  /** goldIds of the records that hold the answer; empty when the dataset gives none. */
  goldEvidence: string[];
  /** The dataset says the memory cannot answer it (LoCoMo category 5, BEAM abstention). */
  unanswerable: boolean;
  /** Who asks, when the question is a speaker's own ("my deadline"): passed to recall as `askedBy`. */
  askedBy?: string;
  /** BEAM knowledge updates: the updated information should rank above the original. */
  update?: { original: string[]; updated: string[] };
}

/** A failed run (tau-bench reward 0, every Who&When log) and, where known, where it went wrong. */
export interface FailedRun {
  runId: string;
  /** The goldSession of the run's records. */
  goldSession: string;
  /** Who&When: the 0-based step where the failure started, and the agent. */
  mistakeStep?: number;
  mistakeAgent?: string;
}

/** One memory owner of a dataset (a conversation, a chat, a task's trials, a log): one fresh tenant. */
export interface EvalCase {
  dataset: EvalDataset;
  /** e.g. `conv-26`, `chat-1`, `task-4`, `hand-crafted-3`. */
  caseId: string;
  /** In time order; observedAt increases. Never holds grader keys (tau-bench instructions, gold actions, Who&When answers). */
  records: EvalRecord[];
  queries: EvalQuery[];
  failedRuns: FailedRun[];
}

/** Records a loader emits carry this tenant until the runner assigns the case's own. */
export const PLACEHOLDER_TENANT = 'eval';

/** What each method is, in the order reports list them. */
export const EVAL_METHODS = ['no-memory', 'recent-history', 'full-text', 'dense', 'nocturne'] as const;
export type EvalMethod = (typeof EVAL_METHODS)[number];

/** One result a method returned for a query, mapped back to the dataset's ids. */
export interface RetrievedItem {
  /** goldIds of the records this result rests on (a raw turn: itself; a note: its evidence). */
  goldIds: string[];
  /** goldSessions of those records. */
  goldSessions: string[];
  score: number;
  /** Approximate context tokens this result adds (chars / 4, as recall counts them). */
  tokens: number;
  /** It rests on a record observed after the temporal cutoff: memory that should not exist yet. */
  afterCutoff: boolean;
}

/** How one method answered one query: its ranked results, best first. */
export interface QueryOutcome {
  dataset: EvalDataset;
  caseId: string;
  queryId: string;
  method: EvalMethod;
  items: RetrievedItem[];
  latencyMs: number;
  /** The method declined to answer: no results, or its best score below its abstention threshold. */
  abstained: boolean;
}

/** Per failed run: did consolidation yield a validated note from it, and where did it point. */
export interface FailedRunOutcome {
  dataset: EvalDataset;
  caseId: string;
  runId: string;
  /** Active or quarantined notes with at least one evidence record from this run. */
  notes: number;
  /** A lesson note (or a correction) cites a record of this run: the run yielded a note explaining its failure. */
  explained?: boolean;
  /** The step Nocturne attributes the failure to (the earliest step cited by a lesson that traces the failed outcome, else by any failure lesson), if any. */
  attributedStep?: number;
  attributedAgent?: string;
  mistakeStep?: number;
  mistakeAgent?: string;
}
