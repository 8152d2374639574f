import { describe, expect, it } from 'vitest';
import { Ulid } from '../../src/contracts/ids.ts';
import { syntheticUlid, vectorText } from '../../tools/bench/recall-bench-csv.ts';
import { SyntheticCorpus, noteIdOf } from '../../tools/bench/recall-bench-data.ts';
import { GEOMETRIES } from '../../tools/bench/recall-bench-vectors.ts';
import { median, percentile, recallAtK, skewedTenantSizes } from '../../tools/bench/recall-bench-stats.ts';

describe('recallAtK', () => {
  it('is the share of the oracle top k found in the candidate top k', () => {
    expect(recallAtK(['a', 'b', 'x'], ['a', 'b', 'c'], 3)).toBeCloseTo(2 / 3);
    expect(recallAtK(['c', 'b', 'a'], ['a', 'b', 'c'], 3)).toBe(1);
  });

  it('counts only the first k of either list', () => {
    // 'a' is in the candidate, but third: outside its top 2.
    expect(recallAtK(['x', 'y', 'a'], ['a', 'b'], 2)).toBe(0);
    expect(recallAtK(['a', 'x'], ['a', 'b', 'x'], 2)).toBe(0.5);
  });

  it('divides by what is eligible when fewer than k are', () => {
    expect(recallAtK(['a'], ['a'], 10)).toBe(1);
    expect(recallAtK([], ['a', 'b'], 10)).toBe(0);
    expect(recallAtK([], [], 10)).toBe(1);
  });
});

describe('percentile and median', () => {
  it('takes the nearest rank, never interpolating', () => {
    const oneToTwenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(oneToTwenty, 95)).toBe(19);
    expect(percentile(oneToTwenty, 100)).toBe(20);
    expect(percentile([5, 1, 3], 50)).toBe(3);
    expect(percentile([40, 10, 30, 20], 50)).toBe(20);
  });

  it('rejects no values and p outside (0, 100]', () => {
    expect(() => percentile([], 50)).toThrow(/no values/);
    expect(() => percentile([1], 0)).toThrow(/p must be/);
  });

  it('averages the two middle values of an even count', () => {
    expect(median([0.9, 1, 0.8])).toBe(0.9);
    expect(median([1, 0.5, 0.7, 0.9])).toBe(0.8);
  });
});

describe('skewedTenantSizes', () => {
  it('gives the smallest tenant the asked share (two tenants: 2^-s / (1 + 2^-s) = 1/4 → 75 / 25)', () => {
    expect(skewedTenantSizes(100, 2, 0.25)).toEqual([75, 25]);
  });

  it('is equal sizes at a share of 1/n, remainders to the first tenants', () => {
    expect(skewedTenantSizes(10, 4, 0.25)).toEqual([3, 3, 2, 2]);
  });

  it('splits 100k over 20 tenants largest first, the smallest at about 1%, summing exactly', () => {
    const sizes = skewedTenantSizes(100_000, 20, 0.01);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(100_000);
    expect(sizes.at(-1)).toBeGreaterThanOrEqual(995);
    expect(sizes.at(-1)).toBeLessThanOrEqual(1005);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1] as number);
    expect(sizes[0]).toBeGreaterThan(30_000);
  });

  it('refuses a smallest share above 1/n and a split that leaves a tenant empty', () => {
    expect(() => skewedTenantSizes(100, 4, 0.3)).toThrow(/smallest share/);
    expect(() => skewedTenantSizes(20, 20, 0.01)).toThrow(/empty/);
  });
});

describe('SyntheticCorpus', () => {
  const corpus = new SyntheticCorpus({
    notes: 200,
    tenants: 4,
    smallestShare: 0.1,
    retiredShare: 0.1,
    dimension: 8,
    seed: 7,
    geometry: GEOMETRIES.e5,
  });

  it('writes one version per note and a second, retired one per retired note', () => {
    const versions = [...corpus.versionLines(50)].join('').trimEnd().split('\n');
    expect(versions).toHaveLength(corpus.versionRows);
    expect(corpus.versionRows).toBe(200 + corpus.tenants.reduce((s, t) => s + t.retired, 0));
    expect(versions.filter((l) => l.includes(',2,retired,'))).toHaveLength(corpus.versionRows - 200);
    const pointers = [...corpus.pointerLines(50)].join('').trimEnd().split('\n');
    expect(pointers).toHaveLength(200);
    expect(pointers.filter((l) => l.endsWith(',2,retired'))).toHaveLength(corpus.versionRows - 200);
  });

  it('judges eligibility from the retired flags and the tenant prefix', () => {
    const pointers = [...corpus.pointerLines(1000)].join('').trimEnd().split('\n');
    const retired = pointers.find((l) => l.startsWith('bench-t00,') && l.endsWith(',retired'))?.split(',')[1] as string;
    const active = pointers.find((l) => l.startsWith('bench-t00,') && l.endsWith(',active'))?.split(',')[1] as string;
    expect(corpus.isEligible(0, active)).toBe(true);
    expect(corpus.isEligible(0, retired)).toBe(false);
    expect(corpus.isEligible(1, active)).toBe(false);
    expect(corpus.isEligible(0, noteIdOf(0, 10_000))).toBe(false);
  });

  it('draws the same unit query vectors from the same seed', () => {
    const again = new SyntheticCorpus({
      notes: 200,
      tenants: 4,
      smallestShare: 0.1,
      retiredShare: 0.1,
      dimension: 8,
      seed: 7,
      geometry: GEOMETRIES.e5,
    });
    const queries = corpus.queries(2);
    expect(queries.map((q) => q.tenant)).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
    expect(again.queries(2)).toEqual(queries);
    for (const q of queries) expect(Math.hypot(...q.vector)).toBeCloseTo(1, 9);
  });
});

describe('geometries', () => {
  /** Mean cosine distance of same-subtopic and same-topic pairs relative to unrelated pairs. */
  function distanceRatios(geometry: (typeof GEOMETRIES)[keyof typeof GEOMETRIES]): {
    sameSubtopic: number;
    sameTopic: number;
  } {
    const queries = new SyntheticCorpus({
      notes: 100,
      tenants: 1,
      smallestShare: 1,
      retiredShare: 0,
      dimension: 384,
      seed: 3,
      geometry,
    }).queries(400);
    const sums = { sameSubtopic: [0, 0], sameTopic: [0, 0], unrelated: [0, 0] };
    for (let i = 0; i < queries.length; i++) {
      for (let j = i + 1; j < queries.length; j++) {
        const a = queries[i] as (typeof queries)[number];
        const b = queries[j] as (typeof queries)[number];
        const [topicA, subA] = a.text.split(' ').filter((_, n) => n % 2 === 1);
        const [topicB, subB] = b.text.split(' ').filter((_, n) => n % 2 === 1);
        const kind = topicA !== topicB ? 'unrelated' : subA === subB ? 'sameSubtopic' : 'sameTopic';
        const distance = 1 - a.vector.reduce((s, x, n) => s + x * (b.vector[n] as number), 0);
        sums[kind][0] = (sums[kind][0] as number) + distance;
        sums[kind][1] = (sums[kind][1] as number) + 1;
      }
    }
    const mean = (k: keyof typeof sums): number => (sums[k][0] as number) / (sums[k][1] as number);
    return { sameSubtopic: mean('sameSubtopic') / mean('unrelated'), sameTopic: mean('sameTopic') / mean('unrelated') };
  }

  it('e5 puts near neighbours at a third and same-topic notes at four fifths of the unrelated distance', () => {
    const r = distanceRatios(GEOMETRIES.e5);
    expect(r.sameSubtopic).toBeGreaterThan(0.28);
    expect(r.sameSubtopic).toBeLessThan(0.38);
    expect(r.sameTopic).toBeGreaterThan(0.75);
    expect(r.sameTopic).toBeLessThan(0.85);
  });

  it('clustered keeps topics far apart', () => {
    expect(distanceRatios(GEOMETRIES.clustered).sameTopic).toBeLessThan(0.4);
  });
});

describe('text forms', () => {
  it('writes vector components as five-decimal integers with an exponent', () => {
    expect(vectorText([0.123456, -0.00003, 0])).toBe('[12346e-5,-3e-5,0e-5]');
  });

  it('makes valid ULIDs for evidence refs', () => {
    for (const n of [0, 31, 32, 19_000_999]) expect(Ulid.safeParse(syntheticUlid(n)).success).toBe(true);
    expect(syntheticUlid(1)).not.toBe(syntheticUlid(2));
  });
});
