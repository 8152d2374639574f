import type { EvalCase } from './types.ts';

/**
 * The temporal holdout: memory is built from records observed up to the cutoff, questions are
 * asked after it. Given as a share of each case's records in time order (`0.8`: the first 80%)
 * or as one instant for every case (an ISO date-time).
 */
export type Cutoff = { share: number } | { at: string };

export function parseCutoff(value: string): Cutoff {
  const share = Number(value);
  if (value.trim() !== '' && Number.isFinite(share)) {
    if (share <= 0 || share > 1) throw new RangeError(`--cutoff: a share must be in (0, 1], got ${value}`);
    return { share };
  }
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new RangeError(`--cutoff: expected a share such as 0.8 or an ISO date-time, got ${JSON.stringify(value)}`);
  return { at: new Date(at).toISOString() };
}

/** The instant of a case's cutoff (inclusive), or undefined when nothing is held out. */
export function cutoffInstant(evalCase: EvalCase, cutoff: Cutoff): string | undefined {
  if ('at' in cutoff) return cutoff.at;
  if (cutoff.share >= 1 || evalCase.records.length === 0) return undefined;
  const last = Math.max(1, Math.ceil(cutoff.share * evalCase.records.length));
  return evalCase.records[last - 1]?.record.observedAt;
}

export const isAfter = (observedAt: string, cutoff: string | undefined): boolean =>
  cutoff !== undefined && Date.parse(observedAt) > Date.parse(cutoff);

export const describeCutoff = (cutoff: Cutoff): string =>
  'at' in cutoff
    ? `records observed up to ${cutoff.at}`
    : `first ${Math.round(cutoff.share * 100)}% of each case's records`;
