import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { splitLineBatches } from '../../../src/archive/lines.ts';
import type { LineEvent } from '../../../src/archive/lines.ts';
import type { QuarantineReason } from '../../../src/archive/parse-line.ts';
import { readObject } from '../../../src/archive/reader.ts';
import type { QuarantinedLine } from '../../../src/archive/reader.ts';
import { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import type { RawRecord } from '../../../src/contracts/raw-record.ts';
import { generateRecords } from '../../helpers/records.ts';
import { collect, objectKeyFor, putRawObject, tempStore } from './fixtures.ts';

/**
 * Fuzzed archive objects: valid records interleaved with random garbage, bad
 * JSON, invalid UTF-8, schema violations, other tenants' records, empty and oversize lines,
 * and sometimes a truncated last line. Every fault is built so that its reason is known by
 * construction (no oracle shared with the reader), and the reader must report exactly those
 * lines with exactly those reasons, yield every valid record in order, and never throw.
 */

const TENANT = 'acme';
const MAX_LINE = 2048; // small, so oversize lines stay cheap

/** Valid records as the writer stores them (zod's output: schema key order, recordedAt set). */
const POOL: RawRecord[] = generateRecords({ tenantId: TENANT, count: 300, seed: 11, withRecordedAt: true }).map(
  (r) => RawRecordInput.parse(r) as RawRecord,
);

type Segment = { text: Buffer; valid?: string; reason?: QuarantineReason };

const bytes = (s: string): Buffer => Buffer.from(s);
const noNewline = (b: Uint8Array): Buffer => Buffer.from(b.filter((x) => x !== 0x0a));

/** Schema violations that are violations whatever the rest of the record holds. */
const VIOLATIONS: Array<(r: Record<string, unknown>) => Record<string, unknown>> = [
  (r) => ({ ...r, kind: 'telepathy' }),
  (r) => ({ ...r, id: 'not-a-ulid' }),
  (r) => ({ ...r, id: String(r.id).toLowerCase().replace(/^0/, 'i') }),
  (r) => ({ ...r, observedAt: '2026-02-30T10:00:00Z' }),
  (r) => ({ ...r, recordedAt: '2026-03-01T10:00:00' }), // no offset
  (r) => ({ ...r, recordedAt: '2026-03-01T10:00:00+24:00' }),
  (r) => ({ ...r, importance: 1.5 }),
  (r) => ({ ...r, importance: '0.5' }),
  (r) => ({ ...r, tags: [''] }),
  (r) => ({ ...r, tenantId: '_acme' }),
  (r) => ({ ...r, outcome: { status: 'ok' } }),
  (r) => ({ ...r, agentId: '' }),
  (r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'sessionId')),
  () => ['a', 'json', 'array'] as unknown as Record<string, unknown>,
];

function validSegment(i: number, variant: number): Segment {
  const r = POOL[i % POOL.length] as RawRecord;
  // Vary the shape the fast path sees: as written, with an unknown field, keys reversed.
  const value =
    variant === 0
      ? r
      : variant === 1
        ? { ...r, producerVersion: 7, nested: { a: [1, null] } }
        : Object.fromEntries(Object.entries(r).reverse());
  return { text: bytes(JSON.stringify(value)), valid: r.id };
}

const segment: fc.Arbitrary<(i: number) => Segment> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(2).map((variant) => (i: number) => validSegment(i, variant)) },
  // Random bytes with one 0xFF (never valid UTF-8): decoding fails before JSON does.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.uint8Array({ maxLength: 60 }), fc.nat()).map(([b, at]) => () => {
      const body = noNewline(b);
      const cut = at % (body.length + 1);
      return {
        text: Buffer.concat([body.subarray(0, cut), Buffer.from([0xff]), body.subarray(cut)]),
        reason: 'invalid_utf8' as const,
      };
    }),
  },
  // Random text that starts with a character no JSON text starts with.
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'grapheme', maxLength: 60 })
      .map((s) => () => ({ text: bytes(`}${s.replace(/\n/g, ' ')}`), reason: 'invalid_json' as const })),
  },
  // A record cut short: a proper prefix of a JSON object is never valid JSON.
  {
    weight: 1,
    arbitrary: fc.nat().map((at) => (i: number) => {
      const line = JSON.stringify(POOL[i % POOL.length]);
      return {
        text: bytes(line.slice(0, at % (line.length - 1))),
        reason: (at % (line.length - 1) === 0 ? 'empty_line' : 'invalid_json') as QuarantineReason,
      };
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('   ', '\t', 'null,', '{"id":}', 'NaN', "{'a':1}")
      .map((s) => () => ({ text: bytes(s), reason: 'invalid_json' as const })),
  },
  {
    weight: 1,
    arbitrary: fc.nat(VIOLATIONS.length - 1).map((v) => (i: number) => ({
      text: bytes(JSON.stringify(VIOLATIONS[v]?.({ ...POOL[i % POOL.length] }))),
      reason: 'schema_violation' as const,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constant((i: number) => ({
      text: bytes(JSON.stringify({ ...POOL[i % POOL.length], tenantId: 'intruder' })),
      reason: 'tenant_mismatch' as const,
    })),
  },
  { weight: 1, arbitrary: fc.constant(() => ({ text: Buffer.alloc(0), reason: 'empty_line' as const })) },
  // Over the line limit, whatever it contains (valid record, garbage): counted, not parsed.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 3 * MAX_LINE }), fc.boolean())
      .map(([extra, asRecord]) => (i: number) => ({
        text: asRecord
          ? bytes(JSON.stringify({ ...POOL[i % POOL.length], text: 'y'.repeat(MAX_LINE + extra) }))
          : Buffer.alloc(MAX_LINE + extra, 0xff),
        reason: 'oversize_line' as const,
      })),
  },
);

/** Builds the object bytes and what the reader must report, from the generated plan. */
function build(
  plan: Array<(i: number) => Segment>,
  tail: Uint8Array | null,
): { body: Buffer; validIds: string[]; expected: Array<{ line: number; reason: QuarantineReason }> } {
  const parts: Buffer[] = [];
  const validIds: string[] = [];
  const expected: Array<{ line: number; reason: QuarantineReason }> = [];
  plan.forEach((make, i) => {
    const s = make(i);
    parts.push(s.text, Buffer.from('\n'));
    if (s.valid !== undefined) validIds.push(s.valid);
    else expected.push({ line: i + 1, reason: s.reason ?? 'invalid_json' });
  });
  // A last line without its newline is truncated, even when its bytes would parse.
  const cut = tail === null ? Buffer.alloc(0) : noNewline(tail);
  if (cut.length > 0) {
    parts.push(cut);
    expected.push({ line: plan.length + 1, reason: 'truncated_line' });
  }
  return { body: Buffer.concat(parts), validIds, expected };
}

const tailArb = fc.option(
  fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 40 }),
    fc.nat(POOL.length - 1).map((i) => bytes(JSON.stringify(POOL[i]))), // a whole valid record, but no newline
  ),
  { freq: 2 },
);

function countBy(expected: Array<{ reason: QuarantineReason }>): Partial<Record<QuarantineReason, number>> {
  const out: Partial<Record<QuarantineReason, number>> = {};
  for (const { reason } of expected) out[reason] = (out[reason] ?? 0) + 1;
  return out;
}

describe('fuzzed archive objects', () => {
  let store: FileArchiveStore;
  let cleanup: () => Promise<void>;
  let n = 0;
  beforeAll(async () => ({ store, cleanup } = await tempStore()));
  afterAll(() => cleanup());

  it('quarantine counts equal the injected faults, every valid record is yielded, nothing throws', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 40 }),
        tailArb,
        fc.constantFrom(undefined, 256), // one pass, or verify-then-stream (tiny verify buffer)
        async (plan, tail, verifyBufferBytes) => {
          const { body, validIds, expected } = build(plan, tail);
          n += 1;
          const key = objectKeyFor(TENANT, `01JQ${String(n).padStart(22, '0')}-0123456789ab`);
          await putRawObject(store, key, body);
          const seen: QuarantinedLine[] = [];
          const reader = readObject(store, key, {
            maxLineBytes: MAX_LINE,
            onQuarantine: (q) => seen.push(q),
            ...(verifyBufferBytes ? { verifyBufferBytes } : {}),
          });
          const records = await collect(reader);
          expect(records.map((r) => r.record.id)).toEqual(validIds);
          expect(reader.quarantined.map(({ line, reason }) => ({ line, reason }))).toEqual(expected);
          expect(reader.stats).toEqual({
            records: validIds.length,
            quarantined: expected.length,
            byReason: countBy(expected),
          });
          expect(seen).toEqual(reader.quarantined);
          expect(reader.quarantined.every((q) => q.objectKey === key && q.detail.length > 0)).toBe(true);
          // Evidence refs cite exact bytes: line numbers and sizes match the object.
          const lines = body.toString('latin1').split('\n');
          for (const r of records) expect(r.lineBytes).toBe(lines[r.line - 1]?.length);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('fuzzed line splitting', () => {
  /** The reference: split on every newline; the last piece is truncated when non-empty. */
  function reference(body: Buffer, max: number): Array<[LineEvent['type'], number, number]> {
    const out: Array<[LineEvent['type'], number, number]> = [];
    const pieces = body.toString('latin1').split('\n');
    pieces.forEach((p, i) => {
      if (i === pieces.length - 1) {
        if (p.length > 0) out.push(['truncated', i + 1, p.length]);
      } else out.push([p.length > max ? 'oversize' : 'line', i + 1, p.length]);
    });
    return out;
  }

  it('gives the same lines however the bytes are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b.map((x) => (x % 7 === 0 ? 0x0a : x)))), // many newlines
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 40 }),
        async (body, sizes, max) => {
          const chunks: Buffer[] = [];
          for (let at = 0, k = 0; at < body.length; k += 1) {
            const size = sizes[k % sizes.length] ?? 1;
            chunks.push(body.subarray(at, at + size));
            at += size;
          }
          const got: Array<[LineEvent['type'], number, number]> = [];
          const texts: string[] = [];
          for await (const batch of splitLineBatches(chunks, { maxLineBytes: max })) {
            for (const e of batch) {
              got.push([e.type, e.line, e.type === 'line' ? e.bytes.length : e.size]);
              if (e.type === 'line') texts.push(e.bytes.toString('latin1'));
            }
          }
          expect(got).toEqual(reference(body, max));
          const pieces = body.toString('latin1').split('\n');
          expect(texts).toEqual(got.filter(([t]) => t === 'line').map(([, line]) => pieces[line - 1]));
        },
      ),
      { numRuns: 300 },
    );
  });
});
