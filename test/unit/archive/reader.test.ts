import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveObjectCorruptError } from '../../../src/archive/errors.ts';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { readObject } from '../../../src/archive/reader.ts';
import type { QuarantinedLine } from '../../../src/archive/reader.ts';
import { generateRecords } from '../../helpers/records.ts';
import { collect, objectKeyFor, putRawObject, tempStore } from './fixtures.ts';

const KEY = objectKeyFor('acme');

/**
 * An object with known faults between valid records. Returns the text and the expected
 * valid ids and quarantine reasons by line, so assertions are exact.
 */
function faultyObject(opts: { badJson: number; schema: number; validEvery?: number }) {
  const valid = generateRecords({ count: 60, seed: 5, withRecordedAt: true });
  const lines: string[] = [];
  const expected: Array<{ line: number; reason: QuarantinedLine['reason'] }> = [];
  const fault = (text: string, reason: QuarantinedLine['reason']) => {
    lines.push(text);
    expected.push({ line: lines.length, reason });
  };
  let v = 0;
  const nextValid = () => lines.push(JSON.stringify(valid[v++]));
  for (let i = 0; i < opts.badJson; i += 1) {
    nextValid();
    fault(i % 2 ? '{"id": "01J' : '{not json}', 'invalid_json');
  }
  for (let i = 0; i < opts.schema; i += 1) {
    nextValid();
    fault(JSON.stringify({ ...valid[v], kind: 'telepathy', id: `X${i}` }), 'schema_violation');
  }
  nextValid();
  fault(
    JSON.stringify({ ...valid[v], id: '01JQ00000000000000000000ZZ', text: 'y'.repeat(1.5 * 1024 * 1024) }),
    'oversize_line',
  );
  nextValid();
  fault(JSON.stringify({ ...valid[v], id: '01JQ00000000000000000000YY', tenantId: 'intruder' }), 'tenant_mismatch');
  while (v < 50) nextValid();
  const validIds = valid.slice(0, v).map((r) => r.id);
  // Truncated last line: the end of a write that was cut short (no trailing newline).
  const text = `${lines.join('\n')}\n${JSON.stringify(valid[55]).slice(0, 40)}`;
  expected.push({ line: lines.length + 1, reason: 'truncated_line' });
  return { text, validIds, expected };
}

describe('ObjectReader quarantine', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  for (const [mode, verifyBufferBytes] of [
    ['one pass', undefined],
    ['verify-then-read (tiny buffer)', 2048],
  ] as const) {
    it(`quarantines exactly the injected faults and yields every valid record (${mode})`, async () => {
      const { text, validIds, expected } = faultyObject({ badJson: 3, schema: 4 });
      await putRawObject(store, KEY, text);
      const seen: QuarantinedLine[] = [];
      const reader = readObject(store, KEY, {
        ...(verifyBufferBytes ? { verifyBufferBytes } : {}),
        onQuarantine: (q) => seen.push(q),
      });
      const records = await collect(reader);
      expect(records.map((r) => r.record.id)).toEqual(validIds);
      expect(reader.quarantined.map(({ line, reason }) => ({ line, reason }))).toEqual(expected);
      expect(seen).toEqual(reader.quarantined);
      expect(reader.stats).toEqual({
        records: validIds.length,
        quarantined: 3 + 4 + 3,
        byReason: { invalid_json: 3, schema_violation: 4, oversize_line: 1, tenant_mismatch: 1, truncated_line: 1 },
      });
      expect(reader.quarantined.every((q) => q.objectKey === KEY && q.detail.length > 0)).toBe(true);
      expect(reader.quarantined.find((q) => q.reason === 'oversize_line')?.detail).toMatch(
        /over the 1048576-byte limit/,
      );
    });
  }

  it('quarantines empty lines and invalid UTF-8 without losing neighbours', async () => {
    const [a, b] = generateRecords({ count: 2, withRecordedAt: true });
    const text = Buffer.concat([
      Buffer.from(`${JSON.stringify(a)}\n\n`),
      Buffer.from([0xff, 0xfe, 0x7b, 0x0a]),
      Buffer.from(`${JSON.stringify(b)}\n`),
    ]);
    await putRawObject(store, KEY, text);
    const reader = readObject(store, KEY);
    expect((await collect(reader)).map((r) => r.line)).toEqual([1, 4]);
    expect(reader.stats.byReason).toEqual({ empty_line: 1, invalid_utf8: 1 });
  });

  it('keeps quarantine details bounded while the counts stay exact', async () => {
    await putRawObject(store, KEY, 'x\n'.repeat(50));
    const reader = readObject(store, KEY, { maxQuarantineDetails: 5 });
    expect(await collect(reader)).toEqual([]);
    expect(reader.stats.quarantined).toBe(50);
    expect(reader.quarantined).toHaveLength(5);
  });
});

describe('ObjectReader on a corrupt object', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  const records = generateRecords({ count: 400, seed: 2, withRecordedAt: true });
  const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');

  async function expectCorrupt(key: string, options: Parameters<typeof readObject>[2] = {}): Promise<void> {
    const yielded: string[] = [];
    const error = await (async () => {
      for await (const r of readObject(store, key, options)) yielded.push(r.record.id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveObjectCorruptError);
    expect(error).toMatchObject({ name: 'ArchiveObjectCorruptError', retryable: true, objectKey: key });
    expect(yielded).toEqual([]); // zero records, not "the ones before the damage"
  }

  it('a truncated gzip object throws a retryable error and contributes zero records', async () => {
    const full = gzipSync(Buffer.from(text));
    expect(full.length).toBeGreaterThan(4000);
    await store.putIfAbsent(KEY, full.subarray(0, Math.floor(full.length * 0.8)), 'application/gzip');
    await expectCorrupt(KEY);
    await expectCorrupt(KEY, { verifyBufferBytes: 1024 }); // also when it is too big to hold back
  });

  it('a flipped byte (CRC mismatch) is corrupt too', async () => {
    const body = Buffer.from(gzipSync(Buffer.from(text)));
    body[body.length - 6] = (body[body.length - 6] ?? 0) ^ 0xff; // inside the CRC32 trailer
    await store.putIfAbsent(KEY, body, 'application/gzip');
    await expectCorrupt(KEY);
  });

  it('a targeted read whose lines lie past the damage also yields nothing', async () => {
    const full = gzipSync(Buffer.from(text));
    await store.putIfAbsent(KEY, full.subarray(0, Math.floor(full.length / 2)), 'application/gzip');
    await expectCorrupt(KEY, { lines: [3, 399] });
  });
});

describe('ObjectReader targeted reads', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  it('returns exactly the requested lines and stops after the last one', async () => {
    const records = generateRecords({ count: 300, seed: 4, withRecordedAt: true });
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    const full = gzipSync(Buffer.from(text));
    // The tail of the object is cut off: a read that stopped early never reaches it.
    await store.putIfAbsent(KEY, full.subarray(0, full.length - 200), 'application/gzip');
    const reader = readObject(store, KEY, { lines: [40, 2, 17] });
    const got = await collect(reader);
    expect(got.map((r) => [r.line, r.record.id])).toEqual([2, 17, 40].map((l) => [l, records[l - 1]?.id]));
    expect(reader.stats).toEqual({ records: 3, quarantined: 0, byReason: {} });
  });

  it('reports requested lines beyond the end of the object as missing', async () => {
    const records = generateRecords({ count: 5, withRecordedAt: true });
    await putRawObject(store, KEY, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const reader = readObject(store, KEY, { lines: [5, 9] });
    expect((await collect(reader)).map((r) => r.line)).toEqual([5]);
    expect(reader.quarantined).toEqual([
      { objectKey: KEY, line: 9, reason: 'missing_line', detail: expect.any(String) },
    ]);
  });
});

describe('ObjectReader iteration', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await tempStore()));
  afterEach(() => cleanup());

  const records = generateRecords({ count: 30, seed: 9, withRecordedAt: true });
  const text = records.map((r, i) => `${i === 3 ? 'garbage' : JSON.stringify(r)}\n`).join('');

  it('answers next() calls made before earlier ones settled in order, like an async generator', async () => {
    await putRawObject(store, KEY, text);
    const reader = readObject(store, KEY);
    const it = reader[Symbol.asyncIterator]();
    const first = await Promise.all(Array.from({ length: 10 }, () => it.next()));
    const rest: string[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value.record.id);
    const ids = [...first.map((r) => (r.done ? undefined : r.value.record.id)), ...rest];
    expect(ids).toEqual(records.filter((_, i) => i !== 3).map((r) => r.id));
    expect(await it.next()).toEqual({ value: undefined, done: true });
    expect(reader.stats).toEqual({ records: 29, quarantined: 1, byReason: { invalid_json: 1 } });
  });

  it('stops cleanly when the consumer breaks out early', async () => {
    await putRawObject(store, KEY, text);
    const reader = readObject(store, KEY);
    const got: string[] = [];
    for await (const r of reader) {
      got.push(r.record.id);
      if (got.length === 2) break;
    }
    expect(got).toEqual(records.slice(0, 2).map((r) => r.id));
    expect(reader.stats.records).toBe(2);
  });
});
