import { describe, expect, it } from 'vitest';
import { TenantSizes, tenantSizesOf } from '../../../src/recall/tenant-sizes.ts';

describe('TenantSizes', () => {
  it('answers with the last count while it is fresh, then asks for a new one', () => {
    let now = 0;
    const sizes = new TenantSizes(60_000, 100, () => now);
    expect(sizes.pathOf('t1')).toBeUndefined();
    sizes.counted('t1', 'hnsw');
    now = 60_000;
    expect(sizes.pathOf('t1')).toBe('hnsw');
    now = 60_001;
    expect(sizes.pathOf('t1')).toBeUndefined();
    sizes.counted('t1', 'exact');
    expect(sizes.pathOf('t1')).toBe('exact');
  });

  it('forgets a tenant on request, and the oldest counts beyond its capacity', () => {
    const sizes = new TenantSizes(60_000, 2, () => 0);
    sizes.counted('a', 'hnsw');
    sizes.counted('b', 'exact');
    sizes.forget('a');
    expect(sizes.pathOf('a')).toBeUndefined();
    sizes.counted('c', 'hnsw');
    sizes.counted('d', 'hnsw');
    expect([sizes.pathOf('b'), sizes.pathOf('c'), sizes.pathOf('d')]).toEqual([undefined, 'hnsw', 'hnsw']);
  });

  it('keeps one per store: the same tenant id in two stores is two tenants', () => {
    const [one, two] = [{}, {}];
    tenantSizesOf(one).counted('t', 'hnsw');
    expect(tenantSizesOf(one).pathOf('t')).toBe('hnsw');
    expect(tenantSizesOf(two).pathOf('t')).toBeUndefined();
  });
});
