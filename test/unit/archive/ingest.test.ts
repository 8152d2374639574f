import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { IngestInputTooLargeError, ingestJsonlFiles } from '../../../src/archive/ingest.ts';
import { readObject } from '../../../src/archive/reader.ts';
import { generateRecords, toJsonl } from '../../helpers/records.ts';
import { collect, tempStore } from './fixtures.ts';

const NOW = new Date('2026-03-05T12:00:00Z');

/** A payload nested deeper than JSON.stringify can recurse (JSON.parse accepts it). */
function deeplyNested(record: object, depth = 200_000): string {
  const json = JSON.stringify(record);
  return `${json.slice(0, -1)},"payload":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

describe('archive put: ingest at the boundary (file://)', () => {
  let store: FileArchiveStore;
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, root, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  const ingest = (paths: string[], extra: Partial<Parameters<typeof ingestJsonlFiles>[1]> = {}) =>
    ingestJsonlFiles(store, { tenantId: 'acme', producer: 'test', paths, now: NOW, ...extra });

  const archivedIds = async (keys: string[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const key of keys) for (const r of await collect(readObject(store, key))) ids.push(r.record.id);
    return ids;
  };

  it('rejects a line that is not UTF-8 instead of storing U+FFFD, and archives the others', async () => {
    const records = generateRecords({ count: 3, seed: 1 });
    const bad = Buffer.from(JSON.stringify({ ...records[1], text: 'caf\u00e9' }).replace('caf\u00e9', 'caf__'));
    bad.set([0xc3, 0x28], bad.indexOf('__')); // an invalid two-byte sequence inside the text
    const file = join(root, 'in.jsonl');
    await writeFile(file, Buffer.concat([Buffer.from(`${JSON.stringify(records[0])}\n`), bad, Buffer.from('\n')]));
    const result = await ingest([file]);
    expect(result.accepted).toBe(1);
    expect(result.rejected).toEqual([{ line: 2, code: 'invalid_utf8', reason: 'line is not valid UTF-8' }]);
    expect(result.rejectedByCode).toEqual({ invalid_utf8: 1 });
    const stored = await archivedIds(result.objects.map((o) => o.objectKey));
    expect(stored).toEqual([records[0]?.id]);
  });

  it('rejects one deeply nested line and still writes the valid lines of its batch', async () => {
    const records = generateRecords({ count: 5, seed: 2 });
    const lines = records.map((r) => JSON.stringify(r));
    lines[2] = deeplyNested(records[2] as object);
    const file = join(root, 'deep.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    const result = await ingest([file]);
    expect(result.rejected).toEqual([expect.objectContaining({ line: 3, code: 'unserializable' })]);
    expect(result.accepted).toBe(4);
    const stored = await archivedIds(result.objects.map((o) => o.objectKey));
    expect(stored.sort()).toEqual([0, 1, 3, 4].map((i) => records[i]?.id).sort());
  });

  it('rejects an id already sent in an earlier batch or an earlier file of the same upload', async () => {
    const records = generateRecords({ count: 6, seed: 3 });
    const first = join(root, 'a.jsonl');
    const second = join(root, 'b.jsonl');
    await writeFile(first, toJsonl([...records.slice(0, 4), { ...records[5], id: records[0]?.id }]));
    await writeFile(second, toJsonl([records[4], { ...records[5], id: records[1]?.id }, records[5]]));
    const result = await ingest([first, second], { batchSize: 2 });
    expect(result.accepted).toBe(6);
    expect(result.rejected.map((r) => [r.file, r.line, r.code])).toEqual([
      [first, 5, 'duplicate_id'],
      [second, 2, 'duplicate_id'],
    ]);
  });

  it('keeps the details of the first rejections only, with exact counts by reason', async () => {
    const records = generateRecords({ count: 10, seed: 4 });
    const lines: string[] = [];
    for (let i = 0; i < 3000; i += 1) lines.push(i % 3 === 0 ? '{broken' : i % 3 === 1 ? '{"id":1}' : '\u00ff');
    const file = join(root, 'bad.jsonl');
    await writeFile(file, `${toJsonl(records)}${lines.join('\n')}\n`);
    const result = await ingest([file], { maxRejectionDetails: 7, batchSize: 100 });
    expect(result.accepted).toBe(10);
    expect(result.rejectedCount).toBe(3000);
    expect(result.rejectedByCode).toEqual({ invalid_json: 2000, schema: 1000 });
    expect(result.rejected.map((r) => r.line)).toEqual([11, 12, 13, 14, 15, 16, 17]);
  });

  it('refuses an upload over the decompressed-bytes cap before writing anything', async () => {
    const records = generateRecords({ count: 200, seed: 5 });
    const file = join(root, 'big.jsonl.gz');
    await writeFile(file, gzipSync(toJsonl(records)));
    await expect(ingest([file], { maxInputBytes: 10_000 })).rejects.toThrow(IngestInputTooLargeError);
    await expect(ingest([file], { maxInputBytes: 10_000 })).rejects.toThrow(/more than 10000 bytes once decompressed/);
    const keys: string[] = [];
    for await (const o of store.list('raw/')) keys.push(o.key);
    expect(keys).toEqual([]);
    expect((await ingest([file])).accepted).toBe(200);
  });

  it('a 2 KB .gz of a million bad lines runs in a 256 MB heap and reports counts', { timeout: 120_000 }, async () => {
    const file = join(root, 'bomb.jsonl.gz');
    const body = gzipSync(Buffer.from('x\n'.repeat(1_000_000)), { level: 9 });
    expect(body.length).toBeLessThan(2500);
    await writeFile(file, body);
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=256', 'bin/nocturne.mjs', 'archive', 'put', file, '--tenant', 'acme', '--json'],
      {
        encoding: 'utf8',
        timeout: 110_000,
        env: { ...process.env, NOCTURNE_ARCHIVE_URI: `file://${join(root, 'archive')}`, NOCTURNE_PRODUCER: 'bomb' },
      },
    );
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ lines: 1_000_000, accepted: 0, rejectedCount: 1_000_000 });
    expect(out.rejectedByCode).toEqual({ invalid_json: 1_000_000 });
    expect(out.rejected).toHaveLength(100);
  });
});
