import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvalCase, EvalDataset } from '../types.ts';
import { loadBeam } from './beam.ts';
import type { LoadOptions } from './input.ts';
import { loadLocomo } from './locomo.ts';
import { loadTauBench } from './tau-bench.ts';
import { loadWhoAndWhen } from './who-and-when.ts';

export { DatasetFormatError, type LoadOptions } from './input.ts';

const LOADERS: Record<EvalDataset, (target: string, options?: LoadOptions) => Promise<EvalCase[]>> = {
  locomo: loadLocomo,
  beam: loadBeam,
  'tau-bench': loadTauBench,
  'who-and-when': loadWhoAndWhen,
};

/** Reads a dataset folder (or, for the single-file datasets, the file) into evaluation cases. */
export function loadDataset(dataset: EvalDataset, target: string, options: LoadOptions = {}): Promise<EvalCase[]> {
  return LOADERS[dataset](target, options);
}

/** Folder of each dataset under the datasets root. */
const DATASET_FOLDERS: Readonly<Record<EvalDataset, string>> = {
  locomo: 'locomo',
  beam: 'beam-100k',
  'tau-bench': 'tau-bench-airline',
  'who-and-when': 'who-and-when',
};

/** Repository root (this file lives in tools/eval/datasets/). */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The datasets root: NOCTURNE_DATASETS, or `../shared/datasets` next to the repository. */
function datasetsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.NOCTURNE_DATASETS
    ? path.resolve(env.NOCTURNE_DATASETS)
    : path.resolve(REPO_ROOT, '..', 'shared', 'datasets');
}

export function defaultDatasetPath(dataset: EvalDataset, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(datasetsRoot(env), DATASET_FOLDERS[dataset]);
}
