/** Pure measures of the recall benchmark: overlap with the oracle, percentiles, tenant sizes. */
import { nearestRank } from '../../src/stats.ts';

/**
 * recall@k: the share of the oracle's first k ids that the candidate's first k ids contain.
 * When fewer than k rows are eligible the oracle is shorter, and the denominator with it, so
 * returning every eligible row scores 1. An empty oracle (nothing eligible) scores 1.
 */
export function recallAtK(candidate: readonly string[], oracle: readonly string[], k: number): number {
  const expected = oracle.slice(0, k);
  if (expected.length === 0) return 1;
  const found = new Set(candidate.slice(0, k));
  return expected.filter((id) => found.has(id)).length / expected.length;
}

/**
 * `nearestRank` from src/stats.ts (which throws for no values), restricted to p in (0, 100]: a
 * benchmark reports latencies from p50 up, and a p0 would only be the fastest run.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile: p must be in (0, 100], got ${p}`);
  return nearestRank(values, p);
}

/** The middle value, or the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid)
    ? ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
    : (sorted[Math.floor(mid)] as number);
}

/** Share of rank r (1-based) among n ranks under a Zipf law with exponent s. */
function zipfShare(r: number, n: number, s: number): number {
  let sum = 0;
  for (let i = 1; i <= n; i++) sum += i ** -s;
  return r ** -s / sum;
}

/**
 * Splits `total` notes over `tenants` tenants by a Zipf law whose exponent is chosen so that the
 * smallest tenant holds `smallestShare` of the notes: a few large tenants and a long tail, which
 * is what makes a tenant filter on an index over all of them hard. Largest first; the sizes add
 * up to `total` exactly (largest-remainder rounding).
 */
export function skewedTenantSizes(total: number, tenants: number, smallestShare: number): number[] {
  if (!Number.isInteger(total) || total < tenants)
    throw new Error(`skewedTenantSizes: need at least one note per tenant, got ${total} for ${tenants}`);
  if (!Number.isInteger(tenants) || tenants < 1)
    throw new Error(`skewedTenantSizes: tenants must be a positive integer, got ${tenants}`);
  if (tenants === 1) return [total];
  // Equal sizes give the smallest tenant 1/n; a Zipf exponent of 0 is that, and larger exponents shrink it.
  if (!(smallestShare > 0 && smallestShare <= 1 / tenants)) {
    throw new Error(`skewedTenantSizes: the smallest share must be in (0, 1/${tenants}], got ${smallestShare}`);
  }
  let lo = 0;
  let hi = 16;
  for (let i = 0; i < 60; i++) {
    const s = (lo + hi) / 2;
    if (zipfShare(tenants, tenants, s) > smallestShare) lo = s;
    else hi = s;
  }
  const exact = Array.from({ length: tenants }, (_, i) => total * zipfShare(i + 1, tenants, lo));
  const sizes = exact.map((x) => Math.floor(x));
  const byRemainder = exact
    .map((x, i) => ({ i, rest: x - Math.floor(x) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let left = total - sizes.reduce((a, b) => a + b, 0), j = 0; left > 0; left--, j++) {
    const slot = byRemainder[j % tenants] as { i: number };
    sizes[slot.i] = (sizes[slot.i] as number) + 1;
  }
  if (sizes.some((n) => n === 0))
    throw new Error(
      `skewedTenantSizes: ${total} notes leave the smallest of ${tenants} tenants empty at a ${smallestShare} share`,
    );
  return sizes;
}

/** a / b rounded to two decimals; both are durations or counts of the same kind. */
export function ratio(a: number, b: number): number {
  return Number((a / b).toFixed(2));
}

/** Milliseconds since a `process.hrtime.bigint()` reading. */
export const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
