import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastChecks, fastRawRecord } from '../../../src/archive/record-fast-path.ts';
import { lineHash, parseLine, summarizeIssues } from '../../../src/archive/parse-line.ts';
import type { ParsedLine } from '../../../src/archive/parse-line.ts';
import { IsoDateTime, TenantId, Ulid } from '../../../src/contracts/ids.ts';
import { RECORD_KINDS, RECORD_SOURCES, RawRecord } from '../../../src/contracts/raw-record.ts';

/**
 * The fast path must never disagree with zod: whenever it accepts, zod accepts with a deeply
 * equal value; and on every input outside its documented hand-offs (own `__proto__`, an
 * `outcome` zod would rebuild: unknown keys, keys out of order, not a plain object) it accepts exactly when zod does — so it is not a fast path
 * that silently gives up. Inputs: generated valid records (keys in any order, unknown keys),
 * then one to three mutations each: wrong types, boundary lengths, bad ULIDs and tenant ids,
 * datetimes with a character changed, dropped or added, numbers out of range, unknown kinds,
 * missing required fields, extra keys.
 */

const KEYS = [
  'id',
  'tenantId',
  'userId',
  'agentId',
  'sessionId',
  'taskId',
  'taskType',
  'kind',
  'observedAt',
  'recordedAt',
  'role',
  'text',
  'payload',
  'tags',
  'importance',
  'outcome',
  'source',
] as const;
const CROCKFORD = [...'0123456789ABCDEFGHJKMNPQRSTVWXYZ'];
const ALNUM = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
const DIGITS = [...'0123456789'];

const str = (min: number, max: number) =>
  fc.oneof(
    fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 12)) }),
    fc.string({ unit: 'binary', minLength: min, maxLength: Math.max(min, Math.min(max, 6)) }),
    fc.constant('x'.repeat(max)),
    fc.constant('😀'.repeat(max / 2)), // length counts UTF-16 units, as zod does
  );

const ulid = fc.string({ unit: fc.constantFrom(...CROCKFORD), minLength: 26, maxLength: 26 });
const tenant = fc
  .tuple(fc.constantFrom(...ALNUM), fc.string({ unit: fc.constantFrom(...ALNUM, '_', '.', '-'), maxLength: 63 }))
  .map(([a, b]) => a + b);
const offset = fc
  .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([s, h, m]) => `${s}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const dateTime = fc
  .tuple(
    fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
    fc.option(fc.string({ unit: fc.constantFrom(...DIGITS), minLength: 1, maxLength: 9 })),
    fc.oneof(fc.constant('Z'), offset),
  )
  .map(([d, frac, tz]) => `${d.toISOString().slice(0, 19)}${frac === null ? '' : `.${frac}`}${tz}`);
const outcome = fc.record(
  {
    status: fc.constantFrom('success', 'failure', 'pending'),
    expected: fc.jsonValue({ maxDepth: 2 }),
    actual: fc.jsonValue({ maxDepth: 2 }),
    reward: fc.double({ noNaN: true, noDefaultInfinity: true }),
  },
  { requiredKeys: ['status'] },
);
const unknownKey = fc
  .string({ maxLength: 10 })
  .filter((k) => !(KEYS as readonly string[]).includes(k) && k !== '__proto__');

const validRecord = fc
  .tuple(
    fc.record(
      {
        id: ulid,
        tenantId: tenant,
        userId: str(1, 256),
        agentId: str(1, 256),
        sessionId: str(1, 256),
        taskId: str(1, 256),
        taskType: str(1, 256),
        kind: fc.constantFrom(...RECORD_KINDS),
        observedAt: dateTime,
        recordedAt: dateTime,
        role: str(1, 64),
        text: fc.string({ maxLength: 40 }),
        payload: fc.jsonValue({ maxDepth: 3 }),
        tags: fc.array(str(1, 64), { maxLength: 5 }),
        importance: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1)),
        outcome,
        source: fc.constantFrom(...RECORD_SOURCES),
      },
      { requiredKeys: ['id', 'tenantId', 'agentId', 'sessionId', 'kind', 'observedAt', 'recordedAt'] },
    ),
    fc.dictionary(unknownKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    fc.infiniteStream(fc.nat()).map((s) => [...s.take(24)]),
  )
  // Keys in any order, unknown keys anywhere: the writer appends recordedAt last, other producers differ.
  .map(([known, extra, order]) => {
    const entries = Object.entries({ ...known, ...extra });
    const keyed = entries
      .map((e, i) => [order[i % order.length] ?? 0, i, e] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return Object.fromEntries(keyed.map(([, , e]) => e)) as Record<string, unknown>;
  });

/** A character of the datetime alphabet (and a few neighbours) at a random place. */
const mutatedDateTime = fc
  .tuple(
    dateTime,
    fc.nat(),
    fc.constantFrom(...'0123456789-:T Z+.tz', '٣', ''),
    fc.constantFrom('replace', 'insert', 'delete'),
  )
  .map(([s, at, c, how]) => {
    const i = at % (s.length + 1);
    return how === 'replace'
      ? s.slice(0, i) + c + s.slice(i + 1)
      : how === 'insert'
        ? s.slice(0, i) + c + s.slice(i)
        : s.slice(0, i) + s.slice(i + 1);
  });
const trickyDateTimes = fc.constantFrom(
  '2024-02-29T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2000-02-29T12:00:00Z',
  '1900-02-29T12:00:00Z',
  '0000-02-29T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-01-00T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T23:60:00Z',
  '2026-01-01T23:59:60Z',
  '2026-01-01T00:00Z',
  '2026-01-01T00:00:00',
  '2026-01-01T00:00:00.Z',
  '2026-01-01T00:00:00.5Z',
  '2026-01-01t00:00:00Z',
  '2026-01-01T00:00:00z',
  '2026-01-01 00:00:00Z',
  '2026-01-01T00:00:00+24:00',
  '2026-01-01T00:00:00+01:60',
  '2026-01-01T00:00:00+0100',
  '2026-01-01T00:00:00+01',
  '2026-01-01T00:00:00-00:00',
  '+02026-01-01T00:00:00Z',
  '2026-01-01T00:00:00Z\n',
  ' 2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00.123456789+05:30',
);
const ulidish = fc.oneof(
  fc.string({
    unit: fc.constantFrom(...CROCKFORD, 'I', 'L', 'O', 'U', 'a', 'z', '-', '٣'),
    minLength: 24,
    maxLength: 28,
  }),
  ulid.map((u) => u.toLowerCase()),
);
const tenantish = fc.oneof(
  fc.string({ unit: fc.constantFrom(...ALNUM.slice(0, 5), '_', '.', '-', '/', ' ', 'é'), minLength: 0, maxLength: 4 }),
  fc.constantFrom('a'.repeat(64), 'a'.repeat(65), '_a', '.a', '-a', 'a_.-'),
);
const numberish = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, 0, 1, -1e-300, 1.0000000001, Number.MAX_VALUE, Infinity, -Infinity, NaN),
  fc.integer(),
);
const anyBad = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  numberish,
  fc.constantFrom(null, true, '', [], {}),
  str(0, 257),
  str(65, 65),
  fc.constant('x'.repeat(257)),
);

const nearValid: Record<(typeof KEYS)[number], fc.Arbitrary<unknown>> = {
  id: fc.oneof(ulidish, ulid),
  tenantId: fc.oneof(tenantish, tenant),
  userId: str(0, 257),
  agentId: str(0, 257),
  sessionId: str(0, 257),
  taskId: str(0, 257),
  taskType: str(0, 257),
  kind: fc.oneof(fc.constantFrom(...RECORD_KINDS, 'telepathy', 'USER_MESSAGE', 'user_message ')),
  observedAt: fc.oneof(mutatedDateTime, trickyDateTimes, dateTime),
  recordedAt: fc.oneof(mutatedDateTime, trickyDateTimes, dateTime),
  role: str(0, 65),
  text: fc.oneof(fc.string(), fc.integer()),
  payload: fc.jsonValue(),
  tags: fc.oneof(
    fc.array(fc.oneof(str(0, 65), fc.integer()), { maxLength: 4 }),
    fc.constant(Array.from({ length: 65 }, () => 't')),
    fc.constant('tag'),
  ),
  importance: numberish,
  outcome: fc.oneof(
    outcome,
    fc.record({ status: fc.constantFrom('success', 'ok', 'SUCCESS'), reward: numberish }),
    fc.record({ reward: fc.double(), status: fc.constant('failure') }), // out of schema order: zod rebuilds it
    fc.record({ status: fc.constant('pending'), note: fc.string() }), // unknown key: zod strips it
    fc.constantFrom(null, [], 'success'),
  ),
  source: fc.constantFrom(...RECORD_SOURCES, 'model', 'USER'),
};

type Mutation = { op: 'set'; key: string; value: unknown } | { op: 'delete'; key: string } | { op: 'proto' };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom(...KEYS)
      .chain((key) =>
        fc.record({ op: fc.constant('set' as const), key: fc.constant(key), value: fc.oneof(nearValid[key], anyBad) }),
      ),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), key: fc.constantFrom(...KEYS) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('set' as const), key: unknownKey, value: fc.jsonValue({ maxDepth: 2 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'proto' as const }) },
);

function mutate(record: Record<string, unknown>, mutations: Mutation[]): Record<string, unknown> {
  let out: Record<string, unknown> = { ...record };
  for (const m of mutations) {
    if (m.op === 'set') out[m.key] = m.value;
    else if (m.op === 'delete') delete out[m.key];
    // An own __proto__ key, as JSON.parse creates it: zod drops it, so the fast path must hand over.
    else
      out = JSON.parse(
        JSON.stringify(out).replace(/^\{/, '{"__proto__":{"polluted":1},').replace(/,\}$/, '}'),
      ) as Record<string, unknown>;
  }
  return out;
}

/** Inputs the fast path must decide itself (outside them it may only hand over to zod). */
function fastPathDecides(v: Record<string, unknown>): boolean {
  if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return false;
  const o = v.outcome;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return true; // absent, or a type error either way
  if (Object.getPrototypeOf(o) !== Object.prototype) return false; // zod's copy would be a plain object
  const order = ['status', 'expected', 'actual', 'reward'];
  const keys = Object.keys(o).map((k) => order.indexOf(k));
  return keys.every((k, i) => k >= 0 && (i === 0 || k > (keys[i - 1] ?? -1)));
}

function expectAgrees(v: Record<string, unknown>): void {
  const fast = fastRawRecord(v);
  const zod = RawRecord.safeParse(v);
  if (fast !== undefined) {
    expect(zod.success).toBe(true);
    expect(fast).toStrictEqual(zod.data);
  }
  if (fastPathDecides(v)) expect(fast !== undefined).toBe(zod.success);
}

describe('fastRawRecord ≡ RawRecord (zod)', () => {
  it('accepts every generated valid record, unchanged and equal to zod’s output', () => {
    fc.assert(
      fc.property(validRecord, (record) => {
        const json = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
        const fast = fastRawRecord(json);
        expect(fast).toBe(json); // no copy
        expect(fast).toStrictEqual(RawRecord.parse(json)); // unknown keys kept, like zod's loose object
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with zod on mutated records (objects as built and after a JSON round trip)', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(validRecord, fc.array(mutation, { minLength: 1, maxLength: 3 }), (record, mutations) => {
        const v = mutate(record, mutations);
        expectAgrees(v);
        expectAgrees(JSON.parse(JSON.stringify(v)) as Record<string, unknown>);
        if (RawRecord.safeParse(v).success) accepted += 1;
        else rejected += 1;
      }),
      { numRuns: 1500 },
    );
    // The generator must exercise both verdicts, or the agreement above proves little.
    console.info(`fast path vs zod: ${accepted} mutated records valid, ${rejected} invalid`);
    expect(accepted / (accepted + rejected)).toBeGreaterThan(0.1);
    expect(rejected / (accepted + rejected)).toBeGreaterThan(0.4);
  });

  it('hands non-objects and odd prototypes to zod', () => {
    for (const v of [null, 1, 'x', [], [{}], new Date(), Object.create({ id: 'x' })]) {
      expect(fastRawRecord(v)).toBeUndefined();
    }
  });

  it('agrees with zod on runs of records that repeat, change or drop recordedAt and tenantId', () => {
    // The fast path remembers the last valid recordedAt and tenantId: a repeated value must be
    // accepted only when it was valid, and a change or a gap must be checked afresh.
    const absent = Symbol('absent');
    const recordedAt = fc.constantFrom(
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T00:00:01Z',
      '1970-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '',
      null,
      absent,
    );
    const tenantId = fc.constantFrom('acme', 'a', 'other.tenant', '', '_a', 7, absent);
    fc.assert(
      fc.property(validRecord, fc.array(fc.tuple(recordedAt, tenantId), { minLength: 1, maxLength: 8 }), (r, runs) => {
        for (const [at, tenant] of runs) {
          const v: Record<string, unknown> = { ...r, recordedAt: at, tenantId: tenant };
          if (at === absent) delete v.recordedAt;
          if (tenant === absent) delete v.tenantId;
          expectAgrees(JSON.parse(JSON.stringify(v)) as Record<string, unknown>);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('string formats match the zod regexes', () => {
  const agree = (
    check: (s: string) => boolean,
    schema: { safeParse: (v: unknown) => { success: boolean } },
    s: string,
  ): void => {
    expect([s, check(s)]).toEqual([s, schema.safeParse(s).success]);
  };

  it('datetime: every day of every month of leap, non-leap and century years, and mutations', () => {
    for (const year of ['0000', '1900', '2000', '2023', '2024', '2100', '2400', '9999']) {
      for (let m = 0; m <= 13; m += 1) {
        for (let d = 0; d <= 32; d += 1) {
          agree(
            fastChecks.isIsoDateTime,
            IsoDateTime,
            `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T10:20:30Z`,
          );
        }
      }
    }
    fc.assert(
      fc.property(
        fc.oneof(mutatedDateTime, trickyDateTimes, dateTime),
        (s) => void agree(fastChecks.isIsoDateTime, IsoDateTime, s),
      ),
      { numRuns: 5000 },
    );
  });

  it('ULID: every code unit at every position, and lengths 25–27', () => {
    const base = '01JQ0000000000000000000000';
    for (let c = 0; c < 256; c += 1)
      for (const at of [0, 13, 25])
        agree(fastChecks.isUlid, Ulid, base.slice(0, at) + String.fromCharCode(c) + base.slice(at + 1));
    for (const s of [base.slice(1), `${base}0`, '']) agree(fastChecks.isUlid, Ulid, s);
    fc.assert(
      fc.property(ulidish, (s) => void agree(fastChecks.isUlid, Ulid, s)),
      { numRuns: 2000 },
    );
  });

  it('tenant id: every code unit first and later, and lengths 0, 1, 64, 65', () => {
    for (let c = 0; c < 256; c += 1) {
      const ch = String.fromCharCode(c);
      for (const s of [ch, `${ch}a`, `a${ch}`, `a${ch}b`]) agree(fastChecks.isTenantId, TenantId, s);
    }
    for (const s of ['', 'a', 'a'.repeat(64), 'a'.repeat(65)]) agree(fastChecks.isTenantId, TenantId, s);
    fc.assert(
      fc.property(tenantish, (s) => void agree(fastChecks.isTenantId, TenantId, s)),
      { numRuns: 2000 },
    );
  });
});

/** parseLine as it was before the fast path: zod alone decides. */
function zodOnlyParse(bytes: Buffer, tenantId: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return parseLine(bytes, tenantId); // decode and JSON errors do not involve the validator
  }
  const parsed = RawRecord.safeParse(value);
  if (!parsed.success)
    return { ok: false, reason: 'schema_violation', detail: summarizeIssues(parsed.error).slice(0, 200) };
  if (parsed.data.tenantId !== tenantId)
    return {
      ok: false,
      reason: 'tenant_mismatch',
      detail: `record tenant ${parsed.data.tenantId} in tenant ${tenantId}'s object`,
    };
  return { ok: true, record: parsed.data, contentHash: lineHash(bytes) };
}

describe('parseLine with the fast path', () => {
  it('gives the same verdict, reason, message and record as zod alone', () => {
    fc.assert(
      fc.property(
        validRecord,
        fc.array(mutation, { maxLength: 2 }),
        fc.constantFrom('acme', 'other'),
        (record, mutations, tenantId) => {
          const v = mutate(mutations.length ? record : { ...record, tenantId }, mutations);
          const bytes = Buffer.from(JSON.stringify(v));
          const got = parseLine(bytes, tenantId);
          const want = zodOnlyParse(bytes, tenantId);
          expect(got).toStrictEqual(want);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps schema-violation messages informative', () => {
    const got = parseLine(Buffer.from(JSON.stringify({ id: 'nope', tenantId: 'acme', kind: 'telepathy' })), 'acme');
    expect(got).toMatchObject({ ok: false, reason: 'schema_violation' });
    expect(!got.ok && got.detail).toMatch(
      /^id: expected a ULID.*; agentId: Invalid input: expected string, received undefined; .*\(\+3 more\)$/,
    );
  });
});
