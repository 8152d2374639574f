import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeKey, COVERAGE_KEY } from '../../src/archive/active-index.ts';
import { IngestInputTooLargeError, ingestJsonlFiles } from '../../src/archive/ingest.ts';
import { openArchive } from '../../src/archive/open.ts';
import { readObject } from '../../src/archive/reader.ts';
import { listActiveTenants } from '../../src/archive/tenants.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { generateRecords, toJsonl } from '../helpers/records.ts';

// `archive put`'s guards and the active-tenants index on the stack's SeaweedFS S3, under a
// prefix of this run's own.
const prefix = `test-ingest/${Date.now()}-${randomBytes(4).toString('hex')}`;
const store = openArchive({
  uri: `s3://${STACK.s3.bucket}/${prefix}`,
  s3: {
    endpoint: `http://${STACK.host}:${STACK.s3.port}`,
    region: STACK.s3.region,
    accessKeyId: STACK.s3.accessKeyId,
    secretAccessKey: STACK.s3.secretAccessKey,
  },
});

describe('archive put on SeaweedFS S3', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nocturne-ingest-s3-'));
  });
  afterAll(async () => {
    for await (const o of store.list('')) await store.delete(o.key);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('rejects bad UTF-8, a deep line and duplicates across files, counts by reason, marks the day', async () => {
    const records = generateRecords({ count: 8, seed: 21 }).map((r) => ({ ...r, observedAt: '2026-04-02T10:00:00Z' }));
    const deep = `${JSON.stringify(records[2]).slice(0, -1)},"payload":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const badUtf8 = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const first = join(dir, 'a.jsonl.gz');
    const second = join(dir, 'b.jsonl');
    const firstText = `${toJsonl(records.slice(0, 2))}${deep}\n${toJsonl(records.slice(3, 5))}`;
    await writeFile(first, gzipSync(Buffer.concat([Buffer.from(firstText), badUtf8, Buffer.from('\n')])));
    await writeFile(second, toJsonl([records[0], ...records.slice(5)]));
    const tenantId = records[0]?.tenantId ?? '';
    const result = await ingestJsonlFiles(store, {
      tenantId,
      producer: 's3-test',
      paths: [first, second],
      batchSize: 2,
    });
    expect(result.accepted).toBe(7);
    expect(result.rejectedByCode).toEqual({ unserializable: 1, invalid_utf8: 1, duplicate_id: 1 });
    expect(result.rejected.map((r) => [r.file, r.line, r.code])).toEqual([
      [first, 3, 'unserializable'],
      [first, 6, 'invalid_utf8'],
      [second, 1, 'duplicate_id'],
    ]);
    let stored = 0;
    for (const o of result.objects) for await (const _ of readObject(store, o.objectKey)) stored += 1;
    expect(stored).toBe(7);
    expect(await store.head(activeKey('2026-04-02', tenantId))).toBeDefined();
  });

  it('refuses an upload over the decompressed cap, writing nothing', async () => {
    const file = join(dir, 'big.jsonl.gz');
    const records = generateRecords({ count: 100, seed: 22, tenantId: 'capped' });
    await writeFile(file, gzipSync(toJsonl(records)));
    const put = ingestJsonlFiles(store, {
      tenantId: 'capped',
      producer: 's3-test',
      paths: [file],
      maxInputBytes: 4096,
    });
    await expect(put).rejects.toThrow(IngestInputTooLargeError);
    for await (const o of store.list('raw/tenant=capped/')) expect.fail(`unexpected object ${o.key}`);
  });

  it('the nightly listing builds the index once, then reads it from `since` on', async () => {
    expect(await store.head(COVERAGE_KEY)).toBeUndefined();
    const listed = await listActiveTenants(store, { since: '2026-04-01', limit: 10 });
    expect(listed.tenants).toHaveLength(1);
    expect(await store.head(COVERAGE_KEY)).toBeDefined();
    expect(await listActiveTenants(store, { since: '2026-04-03', limit: 10 })).toEqual({ tenants: [], more: false });
  });
});
