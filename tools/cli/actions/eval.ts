import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { parseAblations } from '../../eval/ablations.ts';
import { parseCaseSelection } from '../../eval/case-selection.ts';
import { parseCutoff } from '../../eval/cutoff.ts';
import { defaultDatasetPath } from '../../eval/datasets/index.ts';
import { renderNotesSample } from '../../eval/notes-sample/render.ts';
import { renderMarkdown } from '../../eval/report/markdown.ts';
import { renderRecallChart } from '../../eval/report/svg.ts';
import { runEval } from '../../eval/runner.ts';
import { EVAL_DATASETS, type EvalDataset } from '../../eval/types.ts';
import { positiveInt, requireRealStack } from '../args.ts';
import { UsageError } from '../../../src/cli/errors.ts';
import { printJson, printLine } from '../../../src/cli/output.ts';

export interface EvalOpts {
  dataset: string;
  path?: string;
  k: string;
  cutoff: string;
  cases?: string;
  limit?: string;
  notesSample: string;
  ablate?: string;
  out: string;
  keep?: boolean;
  cacheQueries?: boolean;
  json?: boolean;
}

/** `nocturne eval` */
export async function evalCommand(opts: EvalOpts): Promise<void> {
  const dataset = parseDataset(opts.dataset);
  const ks = parseKs(opts.k);
  const cutoff = parseOrUsage(() => parseCutoff(opts.cutoff));
  const limit = opts.limit !== undefined ? positiveInt('--limit')(opts.limit) : undefined;
  const cases = opts.cases !== undefined ? parseOrUsage(() => parseCaseSelection(opts.cases as string)) : undefined;
  const notesSample = opts.notesSample === '0' ? 0 : positiveInt('--notes-sample (0 for none)')(opts.notesSample);
  const ablate = opts.ablate !== undefined ? parseOrUsage(() => parseAblations(opts.ablate as string)) : undefined;
  const config = loadConfig();
  requireRealStack(config, 'nocturne eval');
  const datasetPath = opts.path ?? defaultDatasetPath(dataset);
  const run = await runEval({
    dataset,
    path: datasetPath,
    ks,
    cutoff,
    env: process.env,
    log: (line) => process.stderr.write(`${line}\n`),
    notesSample,
    embeddingCacheDir: path.resolve(opts.out, 'cache'),
    ...(cases !== undefined ? { cases } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(ablate !== undefined ? { ablate } : {}),
    ...(opts.keep ? { keep: true } : {}),
    ...(opts.cacheQueries ? { cacheQueries: true } : {}),
  });
  const dir = path.resolve(opts.out, dataset);
  await mkdir(dir, { recursive: true });
  const chart = `recall-${dataset}.svg`;
  await writeFile(path.join(dir, chart), renderRecallChart(run.summary, dataset));
  await writeFile(path.join(dir, 'report.md'), renderMarkdown(run.summary, { charts: { [dataset]: chart } }));
  await writeFile(path.join(dir, 'summary.json'), `${JSON.stringify(run.summary, null, 2)}\n`);
  await writeFile(
    path.join(dir, 'outcomes.json'),
    `${JSON.stringify({ outcomes: run.outcomes, failedRuns: run.failedRuns })}\n`,
  );
  if (notesSample > 0) await writeFile(path.join(dir, 'notes-sample.md'), renderNotesSample(dataset, run.notesSample));
  if (opts.json) return printJson(run.summary);
  printLine(renderMarkdown(run.summary));
  printLine(
    `report: ${path.join(dir, 'report.md')} (chart ${chart}, summary.json, outcomes.json${notesSample > 0 ? ', notes-sample.md' : ''})`,
  );
}

function parseDataset(value: string): EvalDataset {
  if ((EVAL_DATASETS as readonly string[]).includes(value)) return value as EvalDataset;
  throw new UsageError(`--dataset: expected one of ${EVAL_DATASETS.join(', ')}, got ${JSON.stringify(value)}`);
}

function parseKs(value: string): number[] {
  const ks = value.split(',').map((s) => positiveInt('--k')(s.trim()));
  if (ks.some((k) => k > 100)) throw new UsageError('--k: at most 100');
  return [...new Set(ks)].sort((a, b) => a - b);
}

function parseOrUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
