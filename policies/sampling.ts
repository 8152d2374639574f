import { seededRandom } from './random.ts';

/** Importance weights by what an episode contains. The highest that applies counts. */
export const SAMPLING_WEIGHTS = {
  userCorrection: 8,
  failure: 5,
  highValue: 3,
  rareTaskType: 2,
  other: 1,
} as const;

/** Recency half-life: an episode three days older weighs half as much. @default 3 */
export const RECENCY_HALF_LIFE_DAYS = 3;

/** A task type seen in at most this share of the window's episodes counts as rare. @default 0.05 */
export const RARE_TASK_TYPE_SHARE = 0.05;

const DAY_MS = 86_400_000;

export interface EpisodeSignals {
  hasUserCorrection: boolean;
  hasFailure: boolean;
  hasHighValue: boolean;
  /** Share of the window's episodes with this episode's task type (0..1). */
  taskTypeShare: number;
  /** Latest observedAt of the episode. */
  lastObservedAt: Date;
}

export function importanceWeight(episode: EpisodeSignals): number {
  if (episode.hasUserCorrection) return SAMPLING_WEIGHTS.userCorrection;
  if (episode.hasFailure) return SAMPLING_WEIGHTS.failure;
  if (episode.hasHighValue) return SAMPLING_WEIGHTS.highValue;
  if (episode.taskTypeShare <= RARE_TASK_TYPE_SHARE) return SAMPLING_WEIGHTS.rareTaskType;
  return SAMPLING_WEIGHTS.other;
}

/** 1 for an episode observed now, halving every RECENCY_HALF_LIFE_DAYS; future timestamps count as now. */
export function recencyFactor(lastObservedAt: Date, now: Date): number {
  const ageDays = Math.max(0, now.getTime() - lastObservedAt.getTime()) / DAY_MS;
  return 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
}

export function samplingWeight(episode: EpisodeSignals, now: Date): number {
  return importanceWeight(episode) * recencyFactor(episode.lastObservedAt, now);
}

/**
 * Weighted sampling without replacement (Efraimidis–Spirakis: key = u^(1/w), keep the k largest).
 * Deterministic for a seed; ties keep input order. Items with weight ≤ 0 are never drawn.
 */
export function weightedSample<T>(items: readonly T[], weightOf: (item: T) => number, k: number, seed: number): T[] {
  const random = seededRandom(seed);
  const keyed = items
    .map((item, index) => ({ item, index, weight: weightOf(item), u: random() }))
    .filter((x) => x.weight > 0)
    .map((x) => ({ ...x, key: Math.log(Math.max(x.u, Number.MIN_VALUE)) / x.weight }));
  keyed.sort((a, b) => b.key - a.key || a.index - b.index);
  return keyed.slice(0, Math.max(0, k)).map((x) => x.item);
}
