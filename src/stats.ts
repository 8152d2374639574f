/**
 * Nearest-rank percentile: the smallest value with at least p% of the values at or below it.
 * Always one of the values, never an interpolation, so a p95 of a few latencies stays a real
 * measurement. The one percentile of the repository: benchmarks and the evaluation wrap it with
 * their own answer for no values. Throws a RangeError for no values or p outside [0, 100].
 */
export function nearestRank(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError('nearest-rank percentile of no values');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile ${p} is outside 0..100`);
  const sorted = [...values].sort((a, b) => a - b);
  // p × n first: an integer for integer p, so a whole rank stays whole (0.07 × 100 is 7.000000000000001, ceil 8).
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1] as number;
}
