import { execFileSync } from 'node:child_process';
import { calibrateAbstention, type AbstentionThreshold } from './abstention.ts';
import { runCase } from './case-run.ts';
import { cutoffInstant, describeCutoff, type Cutoff } from './cutoff.ts';
import { loadDataset } from './datasets/index.ts';
import { openEvalPipeline, type EvalPipeline } from './pipeline.ts';
import { unknowableAfter } from './questions.ts';
import type { EvalSummary } from './summary-types.ts';
import { summarize } from './summary.ts';
import type { EvalCase, EvalDataset, FailedRunOutcome, QueryOutcome } from './types.ts';

interface EvalOptions {
  dataset: EvalDataset;
  path: string;
  ks: number[];
  cutoff: Cutoff;
  /** Only the first n cases (a quick look); all when absent. */
  limit?: number;
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
}

/**
 * Loads a dataset, runs every case through Nocturne (a fresh tenant each) and the baselines on
 * the same questions, calibrates abstention, and summarizes per dataset, method and category.
 */
export async function runEval(opts: EvalOptions): Promise<EvalRun> {
  const startedAt = new Date().toISOString();
  const all = await loadDataset(opts.dataset, opts.path);
  const cases = opts.limit !== undefined ? all.slice(0, opts.limit) : all;
  opts.log(
    `eval ${opts.dataset}: ${cases.length} cases, ${cases.reduce((n, c) => n + c.queries.length, 0)} questions, ${cases.reduce((n, c) => n + c.failedRuns.length, 0)} failed runs from ${opts.path}`,
  );
  const pipeline = await openEvalPipeline({
    env: opts.env,
    name: `eval-${opts.dataset}`,
    ...(opts.keep ? { keep: true } : {}),
  });
  let runs: CaseRuns;
  try {
    runs = await runCases(pipeline, cases, opts);
  } finally {
    await pipeline.close();
  }
  const { outcomes, failedRuns, seconds, cutoffs, notes } = runs;
  const thresholds = calibrateAbstention(cases, outcomes);
  const summary = summarize({
    cases,
    outcomes,
    failedRuns,
    ks: opts.ks,
    unknowable: unknowableAfter(cases, (c) => cutoffs.get(c)),
    meta: {
      datasetPaths: { [opts.dataset]: opts.path },
      cutoff: describeCutoff(opts.cutoff),
      embedder: pipeline.embedder.name,
      commit: gitCommit(),
      startedAt,
      seconds,
      notes,
      abstentionThresholds: thresholds,
    },
  });
  return { summary, thresholds, outcomes, failedRuns };
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
}

/** Each case in turn, a fresh tenant each. */
async function runCases(pipeline: EvalPipeline, cases: readonly EvalCase[], opts: EvalOptions): Promise<CaseRuns> {
  const runs: CaseRuns = { outcomes: [], failedRuns: [], seconds: {}, cutoffs: new Map(), notes: 0 };
  for (const [i, evalCase] of cases.entries()) {
    // The holdout is for questions; failure logs (no questions) are all learned from.
    const cutoff = evalCase.queries.length > 0 ? cutoffInstant(evalCase, opts.cutoff) : undefined;
    runs.cutoffs.set(evalCase, cutoff);
    opts.log(
      `[${i + 1}/${cases.length}] ${evalCase.caseId}: ${evalCase.records.length} records, ${evalCase.queries.length} questions, cutoff ${cutoff ?? 'none'}`,
    );
    const result = await runCase(pipeline, evalCase, {
      tenantId: tenantFor(opts.dataset, evalCase.caseId),
      cutoff,
      depth: Math.max(...opts.ks),
      log: opts.log,
    });
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

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}
