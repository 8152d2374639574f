import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { manifestKeyFor, parseDataKey } from '../../../src/archive/keys.ts';
import { priorityLines } from '../../../src/archive/manifest.ts';
import { readManifest } from '../../../src/archive/manifest-io.ts';
import { readObject } from '../../../src/archive/reader.ts';
import { writeBatch } from '../../../src/archive/writer.ts';
import { priorityReasons } from '../../../policies/priority.ts';
import { generateRecords } from '../../helpers/records.ts';
import { collect, tempStore } from './fixtures.ts';

const NOW = new Date('2026-03-05T12:00:00Z');

describe('archive writer + reader (file://)', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  const allKeys = async (): Promise<string[]> => {
    const keys: string[] = [];
    for await (const o of store.list('raw/')) keys.push(o.key);
    return keys;
  };

  it('round-trips every record, stamping recordedAt only where it was absent', async () => {
    const records = generateRecords({ count: 600, seed: 7 });
    (records[0] as { recordedAt?: string }).recordedAt = '2026-03-01T08:00:01.000Z';
    const result = await writeBatch(store, { tenantId: 'acme', producer: 'agent-1', records, now: NOW });
    expect(result.rejected).toEqual([]);
    expect(result.accepted).toBe(600);
    const read = [];
    for (const o of result.objects) read.push(...(await collect(readObject(store, o.objectKey))));
    expect(read.map((r) => r.record.id).sort()).toEqual(records.map((r) => r.id).sort());
    const byId = new Map(read.map((r) => [r.record.id, r.record]));
    for (const sent of records) {
      const { recordedAt, ...rest } = byId.get(sent.id) ?? {};
      expect(rest).toEqual(Object.fromEntries(Object.entries(sent).filter(([k]) => k !== 'recordedAt')));
      expect(recordedAt).toBe(sent.recordedAt ?? NOW.toISOString());
    }
  });

  it('exposes the sha256 of the exact stored line as contentHash', async () => {
    const result = await writeBatch(store, {
      tenantId: 'acme',
      producer: 'p',
      records: generateRecords({ count: 20 }),
      now: NOW,
    });
    const key = result.objects[0]?.objectKey ?? '';
    const lines = gunzipSync(await store.getBytes(key))
      .toString()
      .split('\n');
    for (const r of await collect(readObject(store, key))) {
      expect(r.contentHash).toBe(
        createHash('sha256')
          .update(lines[r.line - 1] ?? '')
          .digest('hex'),
      );
    }
  });

  it('is idempotent: re-sending the same batch writes nothing new', async () => {
    const records = generateRecords({ count: 300, seed: 3 });
    const first = await writeBatch(store, { tenantId: 'acme', producer: 'p', records, now: NOW });
    const keysBefore = await allKeys();
    const second = await writeBatch(store, {
      tenantId: 'acme',
      producer: 'p',
      records,
      now: new Date('2026-03-06T00:00:00Z'),
    });
    expect(first.written).toBe(first.objects.length);
    expect(second).toMatchObject({ written: 0, alreadyPresent: first.objects.length, accepted: 300 });
    expect(second.objects.map((o) => o.objectKey)).toEqual(first.objects.map((o) => o.objectKey));
    expect(await allKeys()).toEqual(keysBefore);
  });

  it('rejects invalid records, other tenants, duplicates and oversize lines with their line numbers', async () => {
    const [a, b, c, d] = generateRecords({ count: 4 });
    const records = [
      a,
      { ...b, kind: 'nope' },
      { ...c, tenantId: 'other' },
      { ...a },
      'not an object',
      { ...d, text: 'x'.repeat(5000) },
    ];
    const result = await writeBatch(store, {
      tenantId: 'acme',
      producer: 'p',
      records,
      lineNumbers: [10, 11, 12, 13, 14, 15],
      maxLineBytes: 4096,
      now: NOW,
    });
    expect(result.accepted).toBe(1);
    expect(result.rejected.map((r) => r.line)).toEqual([11, 12, 13, 14, 15]);
    expect(result.rejected[0]?.reason).toMatch(/^schema: kind:/);
    expect(result.rejected[1]?.reason).toMatch(/tenantId other does not match/);
    expect(result.rejected[2]?.reason).toMatch(/duplicate id/);
    expect(result.rejected[4]?.reason).toMatch(/over the 4096-byte line limit/);
  });

  it('partitions by the UTC date of observedAt, whatever the offset, and splits large groups', async () => {
    const [a, b] = generateRecords({ count: 2 });
    const late = { ...a, observedAt: '2026-03-01T22:30:00-05:00' }; // 03:30Z on March 2
    const early = { ...b, observedAt: '2026-03-02T00:30:00+02:00' }; // 22:30Z on March 1
    const result = await writeBatch(store, { tenantId: 'acme', producer: 'p', records: [late, early], now: NOW });
    expect(result.objects.map((o) => parseDataKey(o.objectKey)?.date)).toEqual(['2026-03-02', '2026-03-01']);

    const many = generateRecords({ count: 400, seed: 9, gapMs: 10 });
    const split = await writeBatch(store, {
      tenantId: 'acme',
      producer: 'p',
      records: many,
      maxObjectBytes: 32 * 1024,
      now: NOW,
    });
    expect(split.objects.length).toBeGreaterThan(3);
    expect(split.objects.reduce((n, o) => n + o.recordCount, 0)).toBe(400);
  });

  it('writes a manifest whose counts and priority lines match the object', async () => {
    const records = generateRecords({ count: 500, seed: 11, gapMs: 60 });
    const result = await writeBatch(store, { tenantId: 'acme', producer: 'p', records, now: NOW });
    expect(result.objects).toHaveLength(1);
    const key = result.objects[0]?.objectKey ?? '';
    const manifest = await readManifest(store, key);
    const read = await collect(readObject(store, key));
    expect(manifest.recordCount).toBe(500);
    expect(manifest.bytes.compressed).toBe((await store.head(key))?.size);
    expect(manifest.bytes.raw).toBe(gunzipSync(await store.getBytes(key)).length);
    const kinds: Record<string, number> = {};
    for (const r of read) kinds[r.record.kind] = (kinds[r.record.kind] ?? 0) + 1;
    expect(manifest.kinds).toEqual(kinds);
    expect(manifest.tags['failure']).toBe(read.filter((r) => r.record.tags?.includes('failure')).length);
    expect(manifest.userIds).toEqual([...new Set(read.map((r) => r.record.userId))].sort());
    const expectedPriority = read.filter((r) => priorityReasons(r.record).length > 0).map((r) => r.line);
    expect(expectedPriority.length).toBeGreaterThan(10);
    expect(priorityLines(manifest)).toEqual(expectedPriority);
  });

  it('repairs a missing manifest from the stored object when the batch is re-sent', async () => {
    const records = generateRecords({ count: 50 });
    const first = await writeBatch(store, { tenantId: 'acme', producer: 'p', records, now: NOW });
    const key = first.objects[0]?.objectKey ?? '';
    const original = await readManifest(store, key);
    await store.delete(manifestKeyFor(key)); // as if the writer crashed between the two puts
    const again = await writeBatch(store, {
      tenantId: 'acme',
      producer: 'p',
      records,
      now: new Date('2026-04-01T00:00:00Z'),
    });
    expect(again.objects[0]).toMatchObject({ status: 'alreadyPresent', repairedManifest: true, recordCount: 50 });
    const repaired = await readManifest(store, key);
    expect({ ...repaired, createdAt: '' }).toEqual({ ...original, createdAt: '' });
  });
});
