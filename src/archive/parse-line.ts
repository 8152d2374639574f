import { hash } from 'node:crypto';
import type { z } from 'zod';
import { RawRecord } from '../contracts/raw-record.ts';
import { formatIssues } from '../contracts/format-issues.ts';
import { fastRawRecord } from './record-fast-path.ts';

/** Why a stored line was quarantined. Stable names: they are counted and reported. */
export const QUARANTINE_REASONS = [
  'invalid_json',
  'invalid_utf8',
  'schema_violation',
  'tenant_mismatch',
  'oversize_line',
  'truncated_line',
  'empty_line',
  'missing_line',
] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

export type ParsedLine =
  { ok: true; record: RawRecord; contentHash: string } | { ok: false; reason: QuarantineReason; detail: string };

// fatal: invalid UTF-8 is quarantined instead of being silently replaced with U+FFFD, which
// would change the text (and break the content hash's promise to cite exact bytes).
const utf8 = new TextDecoder('utf-8', { fatal: true });

const DETAIL_LIMIT = 200;

/** First few zod issues as `path: message`, short enough for a log line or a table cell. */
export function summarizeIssues(error: z.ZodError, limit = 3): string {
  return formatIssues(error.issues, { root: '(record)', limit, countRest: true });
}

/** sha256 hex of the exact stored line (no newline): what an evidence ref cites. */
export function lineHash(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex'); // one-shot: about twice as fast as createHash for short lines
}

/** Decode → JSON.parse → schema → tenant check. `tenantId` comes from the object key. */
export function parseLine(bytes: Buffer, tenantId: string | undefined): ParsedLine {
  if (bytes.length === 0) return { ok: false, reason: 'empty_line', detail: 'empty line' };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'invalid_utf8', detail: 'line is not valid UTF-8' };
  }
  const parsed = parseText(text, tenantId);
  return parsed.ok ? { ok: true, record: parsed.record, contentHash: lineHash(bytes) } : parsed;
}

export type ParsedText = { ok: true; record: RawRecord } | { ok: false; reason: QuarantineReason; detail: string };

/** JSON.parse → schema → tenant check, on a line already decoded (and known to be valid UTF-8). */
export function parseText(text: string, tenantId: string | undefined): ParsedText {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'invalid_json', detail: String((error as Error).message).slice(0, DETAIL_LIMIT) };
  }
  // The fast path proves the common case valid without zod; anything else gets zod's verdict
  // and its message (the fast path never rejects, so it cannot change what is quarantined).
  let record = fastRawRecord(value);
  if (record === undefined) {
    const parsed = RawRecord.safeParse(value);
    if (!parsed.success)
      return { ok: false, reason: 'schema_violation', detail: summarizeIssues(parsed.error).slice(0, DETAIL_LIMIT) };
    record = parsed.data;
  }
  // A record filed under another tenant's prefix must never reach that tenant's runs.
  if (tenantId !== undefined && record.tenantId !== tenantId) {
    return {
      ok: false,
      reason: 'tenant_mismatch',
      detail: `record tenant ${record.tenantId} in tenant ${tenantId}'s object`,
    };
  }
  return { ok: true, record };
}
