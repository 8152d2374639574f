import type { RawRecord } from '../../src/contracts/raw-record.ts';
import { findTimeMentions, mentionCovers, type TimeMention } from '../dates.ts';
import { recordText } from '../text.ts';

/**
 * Whether a note's dates agree with its evidence. A record's time words are resolved against
 * the day it was written ("yesterday" in a record of 8 May 2023 is 7 May 2023); a record with no
 * time words speaks of its own day. So "went to a support group on 7 May 2023" agrees with "I
 * went to a support group yesterday" written on 8 May, and "on 9 May 2023" does not.
 */

type Dated = Pick<RawRecord, 'observedAt' | 'text' | 'payload' | 'outcome'>;

/** The days a record speaks of, as mentions: its time words, or its own day when it has none. */
export function recordPeriods(record: Dated): TimeMention[] {
  const mentions = findTimeMentions(recordText(record), record.observedAt);
  if (mentions.length > 0) return mentions;
  const day = new Date(record.observedAt);
  if (Number.isNaN(day.getTime())) return [];
  const at = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
  return [{ text: record.observedAt, at, precision: 'day' }];
}

/** Whether some cited record speaks of the day `at`. */
export function dateSupported(at: Date | string, cited: readonly Dated[]): boolean {
  return cited.some((r) => recordPeriods(r).some((m) => mentionCovers(m, at)));
}

/** The absolute dates written in `text` ("7 May 2023", "2023-05-07"); relative words are left out. */
export function absoluteDates(text: string): TimeMention[] {
  return findTimeMentions(text, new Date(0)).filter((m) => /\d{4}/.test(m.text));
}

/** `text` with its time expressions cut out, resolved against `observedAt`, and the mentions cut. */
export function withoutTimeWords(text: string, observedAt: Date | string): { rest: string; mentions: TimeMention[] } {
  const mentions = findTimeMentions(text, observedAt);
  let rest = text;
  for (const m of mentions) rest = rest.replace(m.text, ' ');
  return { rest, mentions };
}

/** The first date of `dates` no cited record speaks of, formatted for a verdict's detail. */
export function unsupportedDate(dates: readonly Date[], cited: readonly Dated[]): Date | undefined {
  return dates.find((d) => !dateSupported(d, cited));
}
