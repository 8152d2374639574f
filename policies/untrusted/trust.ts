import type { RawRecord, RecordKind } from '../../src/contracts/raw-record.ts';
import { recordText } from '../text.ts';

/**
 * Which records speak with authority. Trust follows what a record is: a tool's result, an
 * error a tool raised and the payload of a tool call are data from outside, whatever the
 * optional `source` field says; `source` can only take trust away (`tool`, `retrieved`), never
 * grant it. A fact such records alone carry is tool-derived until a trusted record (what a user
 * said, corrected or approved) is cited with it.
 */

/** Kinds whose content comes from tools: data, never instructions. */
export const UNTRUSTED_KINDS: ReadonlySet<RecordKind> = new Set<RecordKind>(['tool_result', 'tool_call', 'error']);

/** Sources that mark any record as data (retrieved documents, tool output pasted into a message). */
export const UNTRUSTED_SOURCES: ReadonlySet<string> = new Set(['tool', 'retrieved']);

/** Kinds that speak for a person: they can confirm a fact a tool reported. */
export const CONFIRMING_KINDS: ReadonlySet<RecordKind> = new Set<RecordKind>([
  'user_message',
  'user_correction',
  'approval',
  'feedback',
]);

type TrustFacts = Pick<RawRecord, 'kind' | 'source' | 'role'>;

export function isUntrusted(r: TrustFacts): boolean {
  return UNTRUSTED_KINDS.has(r.kind) || UNTRUSTED_SOURCES.has(r.source ?? '') || r.role === 'tool';
}

/** A record that confirms what it says: a person's own words, not relayed tool output. */
export function isConfirming(r: TrustFacts): boolean {
  return CONFIRMING_KINDS.has(r.kind) && !isUntrusted(r);
}

/** Everything of an untrusted record that could carry an instruction: its text, payload and outcome. */
export function untrustedText(r: RawRecord): string {
  return isUntrusted(r) ? recordText(r) : '';
}

/** Evidence made only of untrusted records: a note built on it is tool-derived. */
export function toolDerived(cited: readonly TrustFacts[]): boolean {
  return cited.length > 0 && !cited.some(isConfirming);
}
