import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeKey, COVERAGE_KEY, rebuildActiveIndex } from '../../../src/archive/active-index.ts';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import type { ArchiveStore, ListOptions } from '../../../src/archive/store.ts';
import { listActiveTenants } from '../../../src/archive/tenants.ts';
import { writeBatch } from '../../../src/archive/writer.ts';
import { generateRecords } from '../../helpers/records.ts';
import { objectKeyFor, putRawObject, tempStore } from './fixtures.ts';

/** The store, recording each listing's prefix and start. */
function listingSpy(store: ArchiveStore): { store: ArchiveStore; listings: string[] } {
  const listings: string[] = [];
  const spy = Object.create(store) as ArchiveStore;
  spy.list = (prefix: string, options?: ListOptions) => {
    listings.push(`${prefix}${options?.startAfter ? ` after ${options.startAfter}` : ''}`);
    return store.list(prefix, options);
  };
  return { store: spy, listings };
}

const onDay = (tenantId: string, day: string, count: number, seed: number) =>
  generateRecords({ count, seed, tenantId }).map((r, i) => ({
    ...r,
    observedAt: `${day}T0${i % 10}:00:00.000Z`,
  }));

describe('active-tenants index', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  const keysUnder = async (prefix: string): Promise<string[]> => {
    const keys: string[] = [];
    for await (const o of store.list(prefix)) keys.push(o.key);
    return keys;
  };

  it('the writer marks each tenant and day it writes, once, and re-sending changes nothing', async () => {
    const records = [...onDay('acme', '2026-03-01', 4, 1), ...onDay('acme', '2026-03-02', 3, 2)];
    await writeBatch(store, { tenantId: 'acme', producer: 'p', records });
    await writeBatch(store, { tenantId: 'acme', producer: 'p', records: onDay('acme', '2026-03-02', 5, 3) });
    await writeBatch(store, { tenantId: 'acme', producer: 'p', records });
    expect(await keysUnder('index/')).toEqual([activeKey('2026-03-01', 'acme'), activeKey('2026-03-02', 'acme')]);
  });

  it('the nightly listing reads the index from `since` on, never the raw archive, once it covers it', async () => {
    await rebuildActiveIndex(store); // an empty archive: the index covers it from the start
    await writeBatch(store, { tenantId: 'acme', producer: 'p', records: onDay('acme', '2026-03-01', 3, 1) });
    await writeBatch(store, { tenantId: 'beta', producer: 'p', records: onDay('beta', '2026-03-04', 3, 2) });
    await writeBatch(store, { tenantId: 'gamma', producer: 'p', records: onDay('gamma', '2026-03-05', 3, 3) });
    const { store: spied, listings } = listingSpy(store);
    expect(await listActiveTenants(spied, { since: '2026-03-02', limit: 10 })).toEqual({
      tenants: ['beta', 'gamma'],
      more: false,
    });
    expect(await listActiveTenants(spied, { since: '2026-03-02', after: 'beta', limit: 10 })).toEqual({
      tenants: ['gamma'],
      more: false,
    });
    expect(await listActiveTenants(spied, { limit: 2 })).toEqual({ tenants: ['acme', 'beta'], more: true });
    expect(listings).toEqual([
      'index/active/ after index/active/date=2026-03-02',
      'index/active/ after index/active/date=2026-03-02',
      'index/active/',
    ]);
  });

  it('an archive written before the index is listed once, then answered from the index', async () => {
    const record = generateRecords({ count: 1, seed: 9, tenantId: 'old' })[0];
    await putRawObject(store, objectKeyFor('old'), `${JSON.stringify(record)}\n`); // no marker: an older writer
    const { store: spied, listings } = listingSpy(store);
    expect(await listActiveTenants(spied, { since: '2026-03-01', limit: 10 })).toEqual({
      tenants: ['old'],
      more: false,
    });
    expect(await store.head(COVERAGE_KEY)).toBeDefined();
    expect(await listActiveTenants(spied, { since: '2026-03-01', limit: 10 })).toEqual({
      tenants: ['old'],
      more: false,
    });
    expect(listings.filter((l) => l.startsWith('raw/'))).toEqual(['raw/']);
    expect(await rebuildActiveIndex(store)).toEqual({ partitions: 1, tenants: 1 });
  });
});
