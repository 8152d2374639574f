import { createHash } from 'node:crypto';
import type { RawRecord } from '../contracts/raw-record.ts';

/**
 * Strings shorter than this are not searched for: "ok" or "thanks" occur everywhere, and a
 * scan that matches them proves nothing. @default 12
 */
export const MIN_NEEDLE_LENGTH = 12;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The erasure's key: no user id in keys, audit reasons or the report. */
export const subjectKey = (tenantId: string, userId: string): string => sha256(`${tenantId}\u0000${userId}`);

/** Kinds whose text is the subject's own words when no `source` says otherwise. */
const USER_KINDS = new Set(['user_message', 'user_correction', 'feedback', 'approval']);

/**
 * The subject's own words in a record, as written and as they appear inside JSON (escaped):
 * what the scan searches other stores for. Agent, tool and system text is left out on purpose:
 * it is shared across users ("Here is your report"), so finding it elsewhere proves nothing,
 * and it leaves the archive with the record anyway.
 */
export function needlesOf(record: RawRecord): string[] {
  const own = record.source ? record.source === 'user' : USER_KINDS.has(record.kind);
  const text = record.text?.trim();
  if (!own || !text || text.length < MIN_NEEDLE_LENGTH) return [];
  const escaped = JSON.stringify(text).slice(1, -1);
  return escaped === text ? [text] : [text, escaped];
}
