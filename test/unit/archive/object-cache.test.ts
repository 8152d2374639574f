import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { ArchiveObjectCache } from '../../../src/archive/object-cache.ts';
import { readObject, type ReadOptions } from '../../../src/archive/reader.ts';
import type { ArchiveStore } from '../../../src/archive/store.ts';
import { countingStore as counting } from '../../helpers/counting-store.ts';
import { generateRecords } from '../../helpers/records.ts';
import { objectKeyFor, putRawObject, tempStore } from './fixtures.ts';

const KEY = objectKeyFor('acme');

/** What a targeted read hands out and sets aside, in a form two reads can be compared by. */
async function readLines(store: ArchiveStore, key: string, lines: number[], options: ReadOptions = {}) {
  const reader = readObject(store, key, { lines, ...options });
  const records = [];
  for await (const r of reader)
    records.push({ id: r.record.id, line: r.line, hash: r.contentHash, bytes: r.lineBytes });
  return { records, quarantined: reader.quarantined, stats: reader.stats };
}

const jsonl = (records: unknown[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');

describe('ArchiveObjectCache', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = await tempStore());
  });
  afterEach(async () => cleanup());

  it('gives a targeted read exactly what a streamed read gives, faults and missing lines included', async () => {
    const valid = generateRecords({ count: 8, seed: 3, withRecordedAt: true, tenantId: 'acme' });
    const text = [
      JSON.stringify(valid[0]),
      '{not json}',
      JSON.stringify({ ...valid[1], tenantId: 'intruder' }),
      '',
      JSON.stringify({ ...valid[2], text: 'caf\u00e9 \u2014 non-ASCII' }),
      JSON.stringify({ ...valid[3], text: 'y'.repeat(1000) }),
      JSON.stringify(valid[4]),
    ].join('\n');
    await putRawObject(store, KEY, `${text}\n${JSON.stringify(valid[5]).slice(0, 30)}`);
    const cache = new ArchiveObjectCache();
    const options = { maxLineBytes: 1000 };
    const all = await readLines(store, KEY, [1, 2, 3, 4, 5, 6, 7, 8, 9], options);
    expect(all.records.map((r) => r.line)).toEqual([1, 5, 7]);
    expect(all.quarantined.map((q) => q.reason)).toEqual([
      'invalid_json',
      'tenant_mismatch',
      'empty_line',
      'oversize_line',
      'truncated_line',
      'missing_line',
    ]);
    for (const lines of [[1], [2, 3, 4], [5, 6, 7], [1, 7, 8], [8, 9, 12], [6]]) {
      const streamed = await readLines(store, KEY, lines, options);
      const cached = await readLines(store, KEY, lines, { ...options, cache });
      expect(cached).toEqual(streamed);
    }
    expect(cache.stats).toMatchObject({ misses: 1, hits: 5 });
  });

  it('inflates an object once for all batches, and reads it again only when it changed', async () => {
    const records = generateRecords({ count: 6, seed: 4, withRecordedAt: true, tenantId: 'acme' });
    await putRawObject(store, KEY, jsonl(records.slice(0, 3)));
    const counted = counting(store);
    const cache = new ArchiveObjectCache();
    expect((await readLines(counted, KEY, [1], { cache })).records.map((r) => r.id)).toEqual([records[0]?.id]);
    expect((await readLines(counted, KEY, [2, 3], { cache })).records).toHaveLength(2);
    expect(counted.gets).toBe(1);

    // Written again under the same key (deleted, then put with other lines): never the held copy.
    await store.delete(KEY);
    await putRawObject(store, KEY, jsonl(records.slice(3, 6)));
    const after = await readLines(counted, KEY, [1, 2], { cache });
    expect(after.records.map((r) => r.id)).toEqual([records[3]?.id, records[4]?.id]);
    expect(counted.gets).toBe(2);
  });

  it('skips the identity check only under the erasure epoch the copy was last checked under', async () => {
    const records = generateRecords({ count: 4, seed: 5, withRecordedAt: true, tenantId: 'acme' });
    await putRawObject(store, KEY, jsonl(records));
    const counted = counting(store);
    const cache = new ArchiveObjectCache();
    await readLines(counted, KEY, [1], { cache, erasureEpoch: 3 });
    await readLines(counted, KEY, [2], { cache, erasureEpoch: 3 });
    expect({ gets: counted.gets, heads: counted.heads, unchecked: cache.stats.unchecked }).toEqual({
      gets: 1,
      heads: 1,
      unchecked: 1,
    });
    // No epoch (an erasure holds the lease) or another one: the store is asked, and the copy re-tagged.
    await readLines(counted, KEY, [3], { cache });
    await readLines(counted, KEY, [3], { cache, erasureEpoch: 5 });
    expect(counted.heads).toBe(3);
    await readLines(counted, KEY, [4], { cache, erasureEpoch: 5 });
    expect({ gets: counted.gets, heads: counted.heads, hits: cache.stats.hits }).toEqual({
      gets: 1,
      heads: 3,
      hits: 4,
    });

    // Deleted under a new epoch (as every erasure bumps it first): reported missing.
    await store.delete(KEY);
    await expect(readLines(counted, KEY, [1], { cache, erasureEpoch: 6 })).rejects.toMatchObject({
      name: 'ArchiveObjectNotFoundError',
    });
  });

  it('reports a deleted object missing and lets its copy go', async () => {
    const records = generateRecords({ count: 2, seed: 6, withRecordedAt: true, tenantId: 'acme' });
    await putRawObject(store, KEY, jsonl(records));
    const cache = new ArchiveObjectCache();
    await readLines(store, KEY, [1], { cache });
    expect(cache.stats.bytes).toBeGreaterThan(0);
    await store.delete(KEY);
    await expect(readLines(store, KEY, [1], { cache })).rejects.toMatchObject({ name: 'ArchiveObjectNotFoundError' });
    expect(cache.stats.bytes).toBe(0);
  });

  it('holds at most its bound, the least recently read objects going first', async () => {
    const keys = ['a', 'b', 'c'].map((n, i) => objectKeyFor('acme', `01JQ000000000000000000000${i}-0123456789a${n}`));
    for (const [i, key] of keys.entries()) {
      const records = generateRecords({ count: 20, seed: 10 + i, withRecordedAt: true, tenantId: 'acme' });
      await putRawObject(store, key, jsonl(records));
    }
    const one = (await readLines(store, keys[0] as string, [1], { cache: new ArchiveObjectCache() })).stats;
    expect(one.records).toBe(1);
    const sizes = await Promise.all(
      keys.map(async (key) => {
        const c = new ArchiveObjectCache();
        await readLines(store, key, [1], { cache: c });
        return c.stats.bytes;
      }),
    );
    const cache = new ArchiveObjectCache(Math.max(...sizes) * 2);
    for (const key of keys) await readLines(store, key, [1], { cache });
    expect(cache.stats.evictions).toBe(1);
    expect(cache.stats.bytes).toBeLessThanOrEqual(cache.maxBytes);
    await readLines(store, keys[0] as string, [2], { cache }); // the first was let go
    expect(cache.stats).toMatchObject({ hits: 0, misses: 4 });

    // An object larger than the whole bound is read all the same, and not kept.
    const tiny = new ArchiveObjectCache(16);
    expect((await readLines(store, keys[1] as string, [3, 4], { cache: tiny })).records).toHaveLength(2);
    expect(tiny.stats.bytes).toBe(0);
  });

  it('leaves a corrupt object to the streamed read: the lines before the damage, then its error', async () => {
    const records = generateRecords({ count: 40, seed: 8, withRecordedAt: true, tenantId: 'acme' });
    const body = gzipSync(Buffer.from(jsonl(records)));
    await store.putIfAbsent(KEY, body.subarray(0, body.length - 6), 'application/x-ndjson'); // trailer cut
    const cache = new ArchiveObjectCache();
    const early = await readLines(store, KEY, [1, 2], { cache });
    expect(early).toEqual(await readLines(store, KEY, [1, 2]));
    expect(early.records).toHaveLength(2);
    await expect(readLines(store, KEY, [40, 41], { cache })).rejects.toMatchObject({
      name: 'ArchiveObjectCorruptError',
    });
    expect(cache.stats.bytes).toBe(0);
  });
});
