import { describe, expect, it } from 'vitest';
import {
  importanceWeight,
  recencyFactor,
  samplingWeight,
  weightedSample,
  type EpisodeSignals,
} from '../../../policies/sampling.ts';

const now = new Date('2026-11-30T00:00:00Z');
const base: EpisodeSignals = {
  hasUserCorrection: false,
  hasFailure: false,
  hasHighValue: false,
  taskTypeShare: 0.5,
  lastObservedAt: now,
};

describe('importanceWeight', () => {
  it.each([
    ['user correction', { hasUserCorrection: true, hasFailure: true }, 8],
    ['failure', { hasFailure: true }, 5],
    ['high value', { hasHighValue: true }, 3],
    ['rare task type', { taskTypeShare: 0.01 }, 2],
    ['anything else', {}, 1],
  ])('%s weighs %#', (_label, signals, weight) => {
    expect(importanceWeight({ ...base, ...signals })).toBe(weight);
  });
});

describe('recencyFactor', () => {
  it.each([
    [0, 1],
    [3, 0.5],
    [6, 0.25],
    [-2, 1],
  ])('an episode %d days old weighs %d', (days, factor) => {
    expect(recencyFactor(new Date(now.getTime() - days * 86_400_000), now)).toBeCloseTo(factor, 10);
  });

  it('multiplies into the sampling weight', () => {
    const old = { ...base, hasFailure: true, lastObservedAt: new Date(now.getTime() - 3 * 86_400_000) };
    expect(samplingWeight(old, now)).toBeCloseTo(2.5, 10);
  });
});

describe('weightedSample', () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ id: i, w: i < 10 ? 8 : 1 }));

  it('is reproducible for a seed and differs across seeds', () => {
    const a = weightedSample(items, (x) => x.w, 20, 42).map((x) => x.id);
    expect(weightedSample(items, (x) => x.w, 20, 42).map((x) => x.id)).toEqual(a);
    expect(weightedSample(items, (x) => x.w, 20, 43).map((x) => x.id)).not.toEqual(a);
  });

  it('draws without replacement and never more than asked or available', () => {
    const s = weightedSample(items, (x) => x.w, 30, 1);
    expect(new Set(s.map((x) => x.id)).size).toBe(30);
    expect(weightedSample(items.slice(0, 5), (x) => x.w, 30, 1)).toHaveLength(5);
    expect(weightedSample(items, (x) => x.w, 0, 1)).toEqual([]);
  });

  it('never draws zero-weight items', () => {
    expect(weightedSample(items, (x) => (x.id === 3 ? 0 : 1), 100, 9).map((x) => x.id)).not.toContain(3);
  });

  it('prefers heavy items: over many seeds the 10 heavy items fill most of a 10-item sample', () => {
    let heavy = 0;
    for (let seed = 0; seed < 200; seed++)
      heavy += weightedSample(items, (x) => x.w, 10, seed).filter((x) => x.w === 8).length;
    const share = heavy / 2000;
    // Uniform sampling would give 0.10; weight 8 against 90 items of weight 1 gives far more.
    expect(share).toBeGreaterThan(0.35);
  });
});
