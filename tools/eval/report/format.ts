import type { Mean } from '../metrics.ts';
import type { EvalDataset } from '../types.ts';

/** How reports name each dataset. */
export const DATASET_TITLES: Record<EvalDataset, string> = {
  locomo: 'LoCoMo',
  beam: 'BEAM',
  'tau-bench': 'tau-bench (airline)',
  'who-and-when': 'Who&When',
};

/** Shown where a metric has no value (it applied to no question). */
export const NO_VALUE = '–';

function valueOf(value: Mean | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : value.mean;
}

/** A share 0..1 as a percent with one decimal, e.g. `56.7%`. */
export function formatPercent(value: Mean | number | null | undefined): string {
  const v = valueOf(value);
  return v === null ? NO_VALUE : `${(v * 100).toFixed(1)}%`;
}

/** Milliseconds with one decimal: in-process baselines answer in well under a millisecond. */
export function formatMs(value: number | null | undefined): string {
  return value === null || value === undefined ? NO_VALUE : value.toFixed(1);
}

/** A count such as tokens per query, rounded to a whole number. */
export function formatCount(value: Mean | number | null | undefined): string {
  const v = valueOf(value);
  return v === null ? NO_VALUE : String(Math.round(v));
}
