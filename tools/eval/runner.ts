import { execFileSync } from 'node:child_process';
import { calibrateAbstention, type AbstentionThreshold } from './abstention.ts';
import { runCase } from './case-run.ts';
import { cutoffInstant, describeCutoff, type Cutoff } from './cutoff.ts';
import { loadDataset } from './datasets/index.ts';
import { openEvalPipeline } from './pipeline.ts';
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
  const outcomes: QueryOutcome[] = [];
  const failedRuns: FailedRunOutcome[] = [];
  const seconds: Record<string, number> = {};
  const cutoffs = new Map<EvalCase, string | undefined>();
  let notes = 0;
  try {
    for (const [i, evalCase] of cases.entries()) {
      // The holdout is for questions; failure logs (no questions) are all learned from.
      const cutoff = evalCase.queries.length > 0 ? cutoffInstant(evalCase, opts.cutoff) : undefined;
      cutoffs.set(evalCase, cutoff);
      opts.log(
        `[${i + 1}/${cases.length}] ${evalCase.caseId}: ${evalCase.records.length} records, ${evalCase.queries.length} questions, cutoff ${cutoff ?? 'none'}`,
      );
      const result = await runCase(pipeline, evalCase, {
        tenantId: tenantFor(opts.dataset, evalCase.caseId),
        cutoff,
        depth: Math.max(...opts.ks),
        log: opts.log,
      });
      outcomes.push(...result.outcomes);
      failedRuns.push(...result.failedRuns);
      notes += result.notes;
      for (const [phase, s] of Object.entries(result.seconds)) seconds[phase] = round((seconds[phase] ?? 0) + s);
    }
  } finally {
    await pipeline.close();
  }
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
