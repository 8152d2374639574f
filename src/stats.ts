/**
 * Nearest-rank percentile: the smallest value with at least p% of the values at or below it
 * (p in [0, 100], values not empty). Always one of the values, never an interpolation, so a p95
 * of a few latencies stays a real measurement. Benchmarks and the evaluation share it.
 */
export function nearestRank(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  // p × n first: an integer for integer p, so a whole rank stays whole (0.07 × 100 is 7.000000000000001, ceil 8).
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1] as number;
}
