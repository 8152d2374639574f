import { execFileSync } from 'node:child_process';
import type { NoteVersion } from '../../src/contracts/note.ts';
import { calibrateAbstention, type AbstentionThreshold } from './abstention.ts';
import type { AblationName } from '../choices.ts';
import { describeAblations } from './ablations.ts';
import { openEmbeddingCache, type EmbeddingCache } from './baselines/embedding-cache.ts';
import { runCase } from './case-run.ts';
import { selectCases, type PositionedCase } from './case-selection.ts';
import { cutoffInstant, describeCutoff, type Cutoff } from './cutoff.ts';
import { loadDataset } from './datasets/index.ts';
import type { EmbeddingCounts } from './embedding-counts.ts';
import { drawNotesSample, type NotesSample } from './notes-sample/draw.ts';
import { openEvalPipeline, type EvalPipeline } from './pipeline.ts';
import { unknowableAfter, updatesAfter } from './questions.ts';
import { summarizeSplits } from './splits.ts';
import type { EvalMeta, EvalSummary } from './summary-types.ts';
import { summarize } from './summary.ts';
import type { EvalCase, EvalDataset, FailedRunOutcome, QueryOutcome } from './types.ts';

interface EvalOptions {
  dataset: EvalDataset;
  path: string;
  ks: number[];
  cutoff: Cutoff;
  /** 1-based positions of the cases to run, in file order; all when absent. */
  cases?: readonly number[];
  /** Only the first n of those cases (a quick look); all when absent. */
  limit?: number;
  /** Notes drawn for the note-quality sample. @default 50 */
  notesSample?: number;
  /** Where the dense baseline keeps passage embeddings between runs; none when absent. */
  embeddingCacheDir?: string;
  /** Cache question vectors too (latencies then leave out embedding the question). @default false */
  cacheQueries?: boolean;
  /** Parts of the pipeline switched off for this run (tools/eval/ablations.ts). */
  ablate?: readonly AblationName[];
  env: NodeJS.ProcessEnv;
  /** Keep the evaluation's note schema for inspection. @default false */
  keep?: boolean;
  log: (line: string) => void;
}

export interface EvalRun {
  summary: EvalSummary;
  thresholds: AbstentionThreshold[];
  outcomes: QueryOutcome[];
  failedRuns: FailedRunOutcome[];
  notesSample: NotesSample;
}

/**
 * Loads a dataset, runs every case through Nocturne (a fresh tenant each) and the baselines on
 * the same questions, calibrates abstention, and summarizes per dataset, method and category.
 */
export async function runEval(opts: EvalOptions): Promise<EvalRun> {
  const startedAt = new Date().toISOString();
  // Read now: the code under test is what was checked out when the run started, not when it ends.
  const commit = gitCommit();
  const selected = selectCases(await loadDataset(opts.dataset, opts.path), opts.cases, opts.limit);
  const cases = selected.map((c) => c.evalCase);
  opts.log(
    `eval ${opts.dataset}: ${cases.length} cases, ${cases.reduce((n, c) => n + c.queries.length, 0)} questions, ${cases.reduce((n, c) => n + c.failedRuns.length, 0)} failed runs from ${opts.path}`,
  );
  const cache = opts.embeddingCacheDir !== undefined ? openEmbeddingCache(opts.embeddingCacheDir) : undefined;
  const pipeline = await openEvalPipeline({
    env: opts.env,
    name: `eval-${opts.dataset}`,
    ...(opts.keep ? { keep: true } : {}),
    ...(opts.ablate ? { ablate: opts.ablate } : {}),
    ...(cache ? { embeddingStore: cache.store } : {}),
    ...(opts.cacheQueries ? { cacheQueries: true } : {}),
  });
  const ablations = describeAblations(pipeline.ablations);
  for (const line of ablations) opts.log(`ablation ${line}`);
  let runs: CaseRuns;
  try {
    runs = await runCases(pipeline, selected, { ...opts, cache });
  } finally {
    await pipeline.close();
  }
  const embeddings = embeddingReport(pipeline.embeddingCounts, cache, opts.cacheQueries ?? false);
  opts.log(
    `embeddings: ${embeddings.embedded} texts embedded (${embeddings.passagesEmbedded} passages, ${embeddings.queriesEmbedded} queries), ${embeddings.passagesCached} passages read from the cache (${embeddings.denseTurnsCached} of them the dense baseline's turns)${opts.cacheQueries ? `, ${embeddings.queriesCached} queries read from the cache` : ''}`,
  );
  return reportRun(opts, selected, runs, {
    startedAt,
    ...(commit ? { commit } : {}),
    embedder: pipeline.embedder.name,
    embeddings,
    ...(ablations.length > 0 ? { ablations } : {}),
  });
}

/**
 * What the run asked of the embedding model. Passages the dense baseline read from its cache
 * never reached the worker's embedder; its misses did, and are counted there.
 */
function embeddingReport(counts: EmbeddingCounts, cache: EmbeddingCache | undefined, cacheQueries: boolean) {
  const denseTurnsCached = cache?.counts.cached ?? 0;
  const passagesCached = counts.passagesAsked - counts.passagesEmbedded + denseTurnsCached;
  return {
    embedded: counts.passagesEmbedded + counts.queriesEmbedded,
    passagesEmbedded: counts.passagesEmbedded,
    queriesEmbedded: counts.queriesEmbedded,
    passagesCached,
    denseTurnsCached,
    queriesCached: counts.queriesAsked > 0 ? counts.queriesAsked - counts.queriesEmbedded : 0,
    /** With cached questions, latencies leave out embedding the question. */
    cacheQueries,
  };
}

/** The run's summary (all cases, then each split), abstention thresholds and note-quality sample. */
function reportRun(opts: EvalOptions, selected: readonly PositionedCase[], runs: CaseRuns, meta: EvalMeta): EvalRun {
  const cases = selected.map((c) => c.evalCase);
  const { outcomes, failedRuns, seconds, cutoffs, notes } = runs;
  const thresholds = calibrateAbstention(cases, outcomes);
  const unknowable = unknowableAfter(cases, (c) => cutoffs.get(c));
  const unknowableUpdates = updatesAfter(cases, (c) => cutoffs.get(c));
  const summary = summarize({
    cases,
    outcomes,
    failedRuns,
    ks: opts.ks,
    unknowable,
    unknowableUpdates,
    meta: {
      datasetPaths: { [opts.dataset]: opts.path },
      cutoff: describeCutoff(opts.cutoff),
      ...meta,
      seconds,
      notes,
      cases: selected.map((c) => c.position).join(','),
      abstentionThresholds: thresholds,
    },
  });
  const splits = summarizeSplits({
    dataset: opts.dataset,
    cases: selected,
    outcomes,
    failedRuns,
    ks: opts.ks,
    unknowable,
    unknowableUpdates,
  });
  if (splits.length > 0) summary.splits = splits;
  const notesSample = drawNotesSample(runs.committed, opts.notesSample ?? 50);
  return { summary, thresholds, outcomes, failedRuns, notesSample };
}

/** What running every case gave: the outcomes, and what the summary's metadata reports. */
interface CaseRuns {
  outcomes: QueryOutcome[];
  failedRuns: FailedRunOutcome[];
  /** Seconds per phase over all cases. */
  seconds: Record<string, number>;
  /** Each case's cutoff (none for a case without questions). */
  cutoffs: Map<EvalCase, string | undefined>;
  notes: number;
  /** Each case's notes after its run, for the note-quality sample. */
  committed: Array<{ evalCase: EvalCase; notes: NoteVersion[] }>;
}

/** Each case in turn, a fresh tenant each. */
async function runCases(
  pipeline: EvalPipeline,
  cases: readonly PositionedCase[],
  opts: EvalOptions & { cache: EmbeddingCache | undefined },
): Promise<CaseRuns> {
  const runs: CaseRuns = { outcomes: [], failedRuns: [], seconds: {}, cutoffs: new Map(), notes: 0, committed: [] };
  for (const [i, { evalCase, position }] of cases.entries()) {
    // The holdout is for questions; failure logs (no questions) are all learned from.
    const cutoff = evalCase.queries.length > 0 ? cutoffInstant(evalCase, opts.cutoff) : undefined;
    runs.cutoffs.set(evalCase, cutoff);
    opts.log(
      `[${i + 1}/${cases.length}] case ${position} ${evalCase.caseId}: ${evalCase.records.length} records, ${evalCase.queries.length} questions, cutoff ${cutoff ?? 'none'}`,
    );
    const result = await runCase(pipeline, evalCase, {
      tenantId: tenantFor(opts.dataset, evalCase.caseId),
      cutoff,
      depth: Math.max(...opts.ks),
      ...(opts.cache ? { embeddingCache: opts.cache } : {}),
      log: opts.log,
    });
    runs.committed.push({ evalCase, notes: result.committed });
    runs.outcomes.push(...result.outcomes);
    runs.failedRuns.push(...result.failedRuns);
    runs.notes += result.notes;
    for (const [phase, s] of Object.entries(result.seconds))
      runs.seconds[phase] = round((runs.seconds[phase] ?? 0) + s);
  }
  return runs;
}

/** A tenant id per case (tenant ids allow letters, digits, `_ . -`, at most 64 characters). */
export function tenantFor(dataset: EvalDataset, caseId: string): string {
  return `${dataset}-${caseId}`.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 64);
}

const round = (s: number): number => Math.round(s * 10) / 10;

/** The short commit checked out, with "+changes" when tracked files differ from it. */
function gitCommit(): string | undefined {
  const git = (...args: string[]) =>
    execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}+changes`;
  } catch {
    return undefined;
  }
}
