import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { readObject } from '../../../src/archive/reader.ts';
import { generateRecords } from '../../helpers/records.ts';
import { collect, objectKeyFor, putRawObject, tempStore } from './fixtures.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// A full read parses the held object from one decoded string and hashes lines on demand:
// what it returns must be what reading line by line gives.
describe('reading a whole held object', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  const records = generateRecords({ count: 4, seed: 31, tenantId: 'acme' }).map((r, i) => ({
    ...r,
    recordedAt: '2026-03-02T00:00:00.000Z',
    text: ['naïve café ☕', 'plain', '日本語のテキスト', 'emoji 🎉 end'][i],
  }));
  const lines = records.map((r) => Buffer.from(JSON.stringify(r)));

  it('cites the exact bytes of multi-byte lines, and a serialized record carries its hash', async () => {
    const key = objectKeyFor('acme');
    await putRawObject(store, key, Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
    const read = await collect(readObject(store, key));
    expect(read.map((r) => [r.line, r.record.text, r.contentHash, r.lineBytes])).toEqual(
      lines.map((l, i) => [i + 1, records[i]?.text, sha256(l), l.length]),
    );
    expect(JSON.parse(JSON.stringify(read[2])).contentHash).toBe(sha256(lines[2] as Buffer));
  });

  it('an object with one line of invalid UTF-8 quarantines that line and keeps the others, hashes intact', async () => {
    const bad = Buffer.from(lines[1] as Buffer);
    bad[bad.indexOf('plain')] = 0xff;
    const key = objectKeyFor('acme');
    const body = [lines[0], bad, lines[2], Buffer.alloc(0), lines[3]].flatMap((l) => [l as Buffer, Buffer.from('\n')]);
    await putRawObject(store, key, Buffer.concat(body));
    const reader = readObject(store, key);
    const read = await collect(reader);
    expect(read.map((r) => [r.line, r.contentHash])).toEqual([
      [1, sha256(lines[0] as Buffer)],
      [3, sha256(lines[2] as Buffer)],
      [5, sha256(lines[3] as Buffer)],
    ]);
    expect(reader.quarantined.map((q) => [q.line, q.reason])).toEqual([
      [2, 'invalid_utf8'],
      [4, 'empty_line'],
    ]);
  });

  it('reads an object of several gzip members whole, though its trailer announces only the last one’s size', async () => {
    // The inflated size in the trailer only sizes the output buffer; the records read must not depend on it.
    const key = objectKeyFor('acme');
    const members = lines.map((l) => gzipSync(Buffer.concat([l, Buffer.from('\n')])));
    await store.putIfAbsent(key, Buffer.concat(members), 'application/x-ndjson');
    const reader = readObject(store, key);
    const read = await collect(reader);
    expect(read.map((r) => [r.line, r.contentHash])).toEqual(lines.map((l, i) => [i + 1, sha256(l)]));
    expect(reader.stats.quarantined).toBe(0);
  });
});
