import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveObjectCorruptError } from '../../src/archive/errors.ts';
import { ArchiveObjectCache } from '../../src/archive/object-cache.ts';
import { dataKey } from '../../src/archive/keys.ts';
import { readManifest } from '../../src/archive/manifest-io.ts';
import { priorityLines } from '../../src/archive/manifest.ts';
import { openArchive } from '../../src/archive/open.ts';
import { readObject } from '../../src/archive/reader.ts';
import { scanTenant } from '../../src/archive/scan.ts';
import { writeBatch } from '../../src/archive/writer.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { generateRecords } from '../helpers/records.ts';

// The real SeaweedFS S3 of the local stack. Each run writes under its own prefix, so runs
// never see each other's objects and a failed run leaves nothing that breaks the next.
const prefix = `test-archive/${Date.now()}-${randomBytes(4).toString('hex')}`;
const store = openArchive({
  uri: `s3://${STACK.s3.bucket}/${prefix}`,
  s3: {
    endpoint: `http://${STACK.host}:${STACK.s3.port}`,
    region: STACK.s3.region,
    accessKeyId: STACK.s3.accessKeyId,
    secretAccessKey: STACK.s3.secretAccessKey,
  },
});

async function listKeys(p = 'raw/'): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of store.list(p)) keys.push(o.key);
  return keys;
}

describe('archive on SeaweedFS S3', () => {
  afterAll(async () => {
    for (const key of await listKeys()) await store.delete(key);
    await store.close();
  });

  it('round-trips a batch: records, content hashes, manifest and priority lines', async () => {
    const records = generateRecords({ tenantId: 's3-rt', count: 1500, seed: 31 });
    const result = await writeBatch(store, { tenantId: 's3-rt', producer: 'itest', records });
    expect(result.rejected).toEqual([]);
    expect(result.written).toBe(result.objects.length);
    const ids: string[] = [];
    for (const o of result.objects) {
      for await (const r of readObject(store, o.objectKey)) {
        ids.push(r.record.id);
        expect(r.contentHash).toMatch(/^[0-9a-f]{64}$/);
      }
    }
    expect(ids.sort()).toEqual(records.map((r) => r.id).sort());

    const first = result.objects[0]?.objectKey ?? '';
    const manifest = await readManifest(store, first);
    expect(manifest.bytes.compressed).toBe((await store.head(first))?.size);
    const selected = [];
    for await (const r of readObject(store, first, { lines: priorityLines(manifest) })) selected.push(r.line);
    expect(selected).toEqual(priorityLines(manifest));
    expect(selected.length).toBeGreaterThan(0);

    const scan = await scanTenant(store, 's3-rt', { verify: true });
    expect(scan).toMatchObject({ records: 1500, problems: [], verified: { records: 1500, quarantined: 0 } });
  });

  it('is idempotent: the same batch again writes no second copy', async () => {
    const records = generateRecords({ tenantId: 's3-idem', count: 400, seed: 32 });
    const first = await writeBatch(store, { tenantId: 's3-idem', producer: 'itest', records });
    const before = await listKeys('raw/tenant=s3-idem/');
    const again = await writeBatch(store, { tenantId: 's3-idem', producer: 'itest', records });
    expect(again).toMatchObject({ written: 0, alreadyPresent: first.objects.length, accepted: 400 });
    expect(await listKeys('raw/tenant=s3-idem/')).toEqual(before);
    expect(before).toHaveLength(2 * first.objects.length); // each object + its manifest
    expect(await store.putIfAbsent(first.objects[0]?.objectKey ?? '', Buffer.from('x'), 'text/plain')).toBe(
      'alreadyPresent',
    );
  });

  it('stores bytes exactly (no chunk framing) and reads ranges', async () => {
    const key = 'raw/tenant=s3-bytes/blob.bin';
    const body = randomBytes(200_000);
    expect(await store.putIfAbsent(key, body, 'application/octet-stream')).toBe('written');
    expect((await store.getBytes(key)).equals(body)).toBe(true);
    expect((await store.getBytes(key, { start: 10, end: 19 })).equals(body.subarray(10, 20))).toBe(true);
  });

  it('racing writers of one key: exactly one wins and its bytes stay', async () => {
    const key = 'raw/tenant=s3-race/obj.bin';
    const bodies = Array.from({ length: 6 }, (_, i) => Buffer.from(`writer-${i}`));
    const results = await Promise.all(bodies.map((b) => store.putIfAbsent(key, b, 'text/plain')));
    const winners = results.flatMap((r, i) => (r === 'written' ? [i] : []));
    expect(winners).toHaveLength(1);
    expect((await store.getBytes(key)).toString()).toBe(`writer-${winners[0]}`);
  });

  it('a truncated object is a retryable error and contributes zero records', async () => {
    const records = generateRecords({ tenantId: 's3-trunc', count: 300, seed: 33, withRecordedAt: true });
    const full = gzipSync(Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join('')));
    const key = dataKey({
      tenantId: 's3-trunc',
      date: '2026-03-01',
      producer: 'itest',
      seq: `${records[0]?.id}-000000000000`,
    });
    await store.putIfAbsent(key, full.subarray(0, Math.floor(full.length * 0.7)), 'application/gzip');
    const yielded: string[] = [];
    const error = await (async () => {
      for await (const r of readObject(store, key)) yielded.push(r.record.id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveObjectCorruptError);
    expect(error).toMatchObject({ retryable: true, objectKey: key });
    expect(yielded).toEqual([]);
    const scan = await scanTenant(store, 's3-trunc', { verify: true });
    expect(scan.problems.map((p) => p.problem).sort()).toEqual(['corrupt_object', 'missing_manifest']);
  });
  it('serves a targeted read from the worker cache only while the object keeps its size and ETag', async () => {
    const key = dataKey({
      tenantId: 's3-cache',
      date: '2026-03-01',
      producer: 'itest',
      seq: '01JQ0000000000000000000000-00000000cace',
    });
    const [a, b] = [
      generateRecords({ tenantId: 's3-cache', count: 3, seed: 41, withRecordedAt: true }),
      generateRecords({ tenantId: 's3-cache', count: 3, seed: 42, withRecordedAt: true }),
    ];
    const jsonl = (rs: typeof a) => Buffer.from(rs.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const ids = async (lines: number[]) => {
      const out: string[] = [];
      for await (const r of readObject(store, key, { lines, cache })) out.push(r.record.id);
      return out;
    };
    const cache = new ArchiveObjectCache();
    await store.putIfAbsent(key, gzipSync(jsonl(a)), 'application/x-ndjson');
    expect(await ids([1])).toEqual([a[0]?.id]);
    expect(await ids([2, 3])).toEqual([a[1]?.id, a[2]?.id]);
    expect(cache.stats).toMatchObject({ misses: 1, hits: 1 });

    // Deleted (as erasure deletes), then another object under the same key: never the held bytes.
    await store.delete(key);
    await expect(ids([1])).rejects.toMatchObject({ name: 'ArchiveObjectNotFoundError' });
    await store.putIfAbsent(key, gzipSync(jsonl(b)), 'application/x-ndjson');
    expect(await ids([1, 2])).toEqual([b[0]?.id, b[1]?.id]);
    expect(cache.stats.misses).toBe(2);
  });
});
