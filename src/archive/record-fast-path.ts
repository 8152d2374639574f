import { RECORD_KINDS, RECORD_SOURCES } from '../contracts/raw-record.ts';
import type { RawRecord } from '../contracts/raw-record.ts';

/**
 * A hand-written check of the `RawRecord` contract for the archive reader's hot path: zod's
 * general machinery (issue arrays, a fresh output object per record and per nested object)
 * costs more than `JSON.parse` itself (bench archive: 3.6–6.7 µs vs 1.9–4.0 µs a record), and
 * the reader validates every line.
 *
 * It answers only "certainly valid": it returns the parsed value itself (no copy) when
 * `RawRecord.parse` would accept it and return a deeply equal value, and `undefined` for
 * anything else, including valid records it does not want to reason about. The caller then
 * asks zod, which gives the verdict and its error message. So the fast path can make the
 * reader faster but never more or less lenient.
 *
 * Where the returned value differs from zod's copy: only in the order of top-level keys. zod
 * rebuilds the object with the schema's keys first; the fast path keeps the stored line's
 * order (the writer appends a stamped `recordedAt` last, so that is the usual case). Deep
 * equality holds; unknown keys are kept either way (the schema is loose). An own `__proto__`
 * key, which zod drops, and an `outcome` with unknown keys, which zod strips (that object is
 * not loose), take the zod path, as does an `outcome` whose keys are out of schema order, so
 * a nested object is always exactly what zod would build.
 *
 * Kept in lockstep with `src/contracts/raw-record.ts` by the property test in
 * `test/unit/archive/record-fast-path.test.ts` (valid records and per-field mutations; the
 * fast verdict must equal zod's on every input outside the hand-offs above).
 */

const KINDS: ReadonlySet<unknown> = new Set(RECORD_KINDS);
const SOURCES: ReadonlySet<unknown> = new Set(RECORD_SOURCES);
const OUTCOME_STATUSES: ReadonlySet<unknown> = new Set(['success', 'failure', 'pending']);
const OUTCOME_KEYS = ['status', 'expected', 'actual', 'reward'] as const;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The last `recordedAt` and `tenantId` proven valid. The writer stamps one `recordedAt` on a
 * whole batch and an object holds one tenant, so consecutive records repeat them: comparing
 * with the previous value costs less than checking the format again. They start as values
 * that are themselves valid, so an equal value is always a valid one.
 */
let validRecordedAt = '1970-01-01T00:00:00Z';
let validTenantId = 'a';

/** Exported for the equivalence test only. */
export const fastChecks = { isUlid, isTenantId, isIsoDateTime };

/**
 * The record when it certainly passes `RawRecord` unchanged; otherwise `undefined` (ask zod).
 * An optional field that is `undefined` passes, as zod lets it (and keeps the key).
 *
 * Each field of the schema is read by name rather than by walking the record's keys: a walk
 * compares every key against the schema's names, and measured dearer (about 3,200 against
 * 2,600 instructions a bench record, counted with valgrind, both beyond JSON.parse).
 * Unknown keys need no look: the schema keeps them with any value.
 */
export function fastRawRecord(value: unknown): RawRecord | undefined {
  if (!isPlainObject(value)) return undefined;
  const v = value as Record<string, unknown>;
  const { id, tenantId, observedAt, recordedAt } = v;
  if (typeof id !== 'string' || !isUlid(id)) return undefined;
  if (tenantId !== validTenantId) {
    if (typeof tenantId !== 'string' || !isTenantId(tenantId)) return undefined;
    validTenantId = tenantId;
  }
  if (!isText(v.agentId, 256) || !isText(v.sessionId, 256) || !KINDS.has(v.kind)) return undefined;
  if (typeof observedAt !== 'string' || !isIsoDateTime(observedAt)) return undefined;
  if (recordedAt !== validRecordedAt) {
    if (typeof recordedAt !== 'string' || !isIsoDateTime(recordedAt)) return undefined;
    validRecordedAt = recordedAt;
  }
  const { userId, taskId, taskType, role, text, tags, importance, outcome, source } = v;
  if (userId !== undefined && !isText(userId, 256)) return undefined;
  if (taskId !== undefined && !isText(taskId, 256)) return undefined;
  if (taskType !== undefined && !isText(taskType, 256)) return undefined;
  if (role !== undefined && !isText(role, 64)) return undefined;
  if (text !== undefined && typeof text !== 'string') return undefined;
  if (tags !== undefined && !isTags(tags)) return undefined;
  if (importance !== undefined && !isImportance(importance)) return undefined;
  if (outcome !== undefined && !isOutcome(outcome)) return undefined;
  if (source !== undefined && !SOURCES.has(source)) return undefined;
  // `payload` is anything. An own `__proto__` key (JSON.parse makes one) is dropped by zod.
  if (hasOwn.call(v, '__proto__')) return undefined;
  return value as RawRecord;
}

/** A string of 1 to `max` UTF-16 code units, as zod's `min(1).max(max)` counts. */
function isText(x: unknown, max: number): boolean {
  return typeof x === 'string' && x.length >= 1 && x.length <= max;
}

function isImportance(x: unknown): boolean {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;
}

/**
 * What JSON.parse makes. Other prototypes could lend keys through `for…in` that zod would copy
 * into its output as own properties, so they take the zod path.
 */
function isPlainObject(x: unknown): x is object {
  return typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === Object.prototype;
}

function isTags(x: unknown): boolean {
  if (!Array.isArray(x) || x.length > 64) return false;
  for (const tag of x as unknown[]) if (typeof tag !== 'string' || tag.length < 1 || tag.length > 64) return false;
  return true;
}

/** `Outcome` is a strict-shape (stripping) object: any extra key means zod's output differs. */
function isOutcome(x: unknown): boolean {
  if (!isPlainObject(x)) return false;
  const o = x as Record<string, unknown>;
  let last = -1;
  let hasStatus = false;
  for (const key in o) {
    const index = OUTCOME_KEYS.indexOf(key as (typeof OUTCOME_KEYS)[number]);
    if (index <= last) return false; // unknown (-1), repeated or out of order
    last = index;
    const field = o[key];
    if (index === 0) {
      if (!OUTCOME_STATUSES.has(field)) return false;
      hasStatus = true;
    } else if (index === 3) {
      if (typeof field !== 'number' || !Number.isFinite(field)) return false;
    } else if (field === undefined) return false;
  }
  return hasStatus;
}

// --- string formats, by character code (the regexes they mirror are in contracts/ids.ts) ---

/** 1 for each ASCII code unit of Crockford base32 (0-9, A-Z minus I L O U). */
const CROCKFORD = new Uint8Array(128);
for (const c of '0123456789ABCDEFGHJKMNPQRSTVWXYZ') CROCKFORD[c.charCodeAt(0)] = 1;

/**
 * /^[0-9A-HJKMNP-TV-Z]{26}$/. A table lookup rather than range comparisons: a ULID's random
 * part mixes digits and letters unpredictably, and the branches of a range test mispredicted
 * often enough to cost twice the lookup (bench archive, 0.2 vs 0.08 µs an id).
 */
function isUlid(s: string): boolean {
  if (s.length !== 26) return false;
  for (let i = 0; i < 26; i += 1) {
    const c = s.charCodeAt(i);
    if (c > 127 || CROCKFORD[c] === 0) return false;
  }
  return true;
}

/** /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/ */
function isTenantId(s: string): boolean {
  const n = s.length;
  if (n < 1 || n > 64) return false;
  for (let i = 0; i < n; i += 1) {
    const c = s.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum && (i === 0 || (c !== 95 && c !== 46 && c !== 45))) return false;
  }
  return true;
}

/**
 * The shape of zod's `z.iso.datetime({ offset: true })`, `YYYY-MM-DDTHH:MM:SS(.f+)?(Z|±HH:MM)`
 * with months 01-12, days 01-31, hours 00-23, minutes and seconds 00-59, at least one
 * fraction digit after a dot. The compiled pattern checks it in native code, a few times
 * cheaper than the same checks by character code.
 */
const ISO_DATETIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** zod's datetime: the shape above on a real calendar day (Feb 29 only in Gregorian leap years, year 0000 included). */
function isIsoDateTime(s: string): boolean {
  if (!ISO_DATETIME.test(s)) return false;
  const tens = s.charCodeAt(8); // days 01-28 exist in every month
  return tens < 50 || (tens === 50 && s.charCodeAt(9) < 57) || isCalendarDay(s);
}

/** Day 29, 30 or 31 of a `YYYY-MM-DD` prefix already known to have that shape. */
function isCalendarDay(s: string): boolean {
  const year = Number(s.slice(0, 4));
  const month = Number(s.slice(5, 7));
  const day = Number(s.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
}
