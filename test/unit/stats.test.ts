import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../src/stats.ts';

describe('nearestRank', () => {
  const oneToTwenty = Array.from({ length: 20 }, (_, i) => 20 - i);

  it.each([
    [0, 1],
    [5, 1],
    [50, 10],
    [95, 19],
    [96, 20],
    [100, 20],
  ])('p%d of 1..20 (unsorted) is %d', (p, expected) => {
    expect(nearestRank(oneToTwenty, p)).toBe(expected);
  });

  it('keeps a whole rank whole (7% of 100 values is the 7th, not the 8th)', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(nearestRank(hundred, 7)).toBe(7);
  });

  it('refuses no values and p outside 0..100 instead of answering undefined', () => {
    expect(() => nearestRank([], 50)).toThrow(RangeError);
    expect(() => nearestRank([1], -1)).toThrow(RangeError);
    expect(() => nearestRank([1], 101)).toThrow(RangeError);
    expect(() => nearestRank([1], Number.NaN)).toThrow(RangeError);
  });
});
