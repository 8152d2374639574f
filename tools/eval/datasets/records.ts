import { monotonicFactory } from 'ulid';
import { seededRandom, seedFrom } from '../../../policies/random.ts';
import type { RawRecordInput, RecordKind } from '../../../src/contracts/raw-record.ts';
import { PLACEHOLDER_TENANT, type EvalRecord } from '../types.ts';
import { MONTHS } from '../../../policies/dates.ts';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const DAY = 24 * 60 * MINUTE;

/** The record fields a loader decides; id, tenant and times are filled in by `assembleRecords`. */
export interface DraftRecord {
  kind: RecordKind;
  source: NonNullable<RawRecordInput['source']>;
  agentId: string;
  sessionId: string;
  userId?: string;
  taskId?: string;
  taskType?: string;
  role?: string;
  text?: string;
  payload?: unknown;
  tags?: string[];
  outcome?: RawRecordInput['outcome'];
}

export interface Draft {
  goldId: string;
  goldSession: string;
  step?: number;
  actor?: string;
  /** When the dataset says it happened (epoch ms). */
  at: number;
  record: DraftRecord;
}

/**
 * Turns drafts (in the dataset's own order) into records: the dataset's order is the true order,
 * so a record never gets a time at or before the previous one's (it is moved 1 s after it), and
 * ids are ULIDs from a PRNG seeded by the case id, so the same input always gives the same ids.
 */
export function assembleRecords(caseId: string, drafts: readonly Draft[]): EvalRecord[] {
  const nextId = monotonicFactory(seededRandom(seedFrom(caseId)));
  const seen = new Set<string>();
  let previous = -Infinity;
  return drafts.map((draft) => {
    if (seen.has(draft.goldId)) throw new Error(`${caseId}: two records share the gold id ${draft.goldId}`);
    seen.add(draft.goldId);
    const at = Math.max(draft.at, previous + SECOND);
    previous = at;
    const time = new Date(at).toISOString();
    const record: RawRecordInput = {
      id: nextId(at),
      tenantId: PLACEHOLDER_TENANT,
      observedAt: time,
      recordedAt: time,
      ...dropUndefined(draft.record),
    };
    return {
      goldId: draft.goldId,
      goldSession: draft.goldSession,
      ...(draft.step !== undefined ? { step: draft.step } : {}),
      ...(draft.actor !== undefined ? { actor: draft.actor } : {}),
      record,
    };
  });
}

/** Questions are asked a day after the case's last record, so every record is in the past. */
export function dayAfterLast(records: readonly EvalRecord[]): string {
  const last = records.at(-1);
  return new Date((last ? Date.parse(last.record.observedAt) : 0) + DAY).toISOString();
}

/** The record schema caps roles at 64 characters; agent names in logs can be longer. */
export const clipRole = (role: string): string => role.slice(0, 64);

/** Text only when there is some: an empty string carries nothing for recall. */
export const textIfAny = (text: string | null | undefined): { text?: string } => (text && text.trim() ? { text } : {});

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Month number (0-11) of an English month name, or undefined. */
export function monthIndex(name: string): number | undefined {
  const i = MONTHS.indexOf(name.toLowerCase());
  return i >= 0 ? i : undefined;
}

/** Epoch ms of a calendar date and time (UTC: the datasets give no time zone), or undefined when the date does not exist. */
export function utcTime(year: number, month: number, day: number, hour = 0, minute = 0): number | undefined {
  const t = Date.UTC(year, month, day, hour, minute);
  const d = new Date(t);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month && d.getUTCDate() === day ? t : undefined;
}
