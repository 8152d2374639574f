import type { RawRecord } from '../../src/contracts/raw-record.ts';
import {
  findTimeMentions,
  formatMention,
  mentionsOverlap,
  placedTimeMentions,
  type PlacedMention,
  type TimeMention,
} from '../dates.ts';
import { recordText } from '../text.ts';

/**
 * Whether a note's dates agree with its evidence. A record's time words are resolved against
 * the day it was written ("yesterday" in a record of 8 May 2023 is 7 May 2023); every record
 * also speaks of its own day. So "went to a support group on 7 May 2023" agrees with "I
 * went to a support group yesterday" written on 8 May, and "on 9 May 2023" does not.
 */

type Dated = Pick<RawRecord, 'observedAt' | 'text' | 'payload' | 'outcome'>;

/** The periods a record speaks of: its time words, and its own day (a digest's "on 8 May 2023"). */
export function recordPeriods(record: Dated): TimeMention[] {
  const mentions = findTimeMentions(recordText(record), record.observedAt);
  if (Number.isNaN(new Date(record.observedAt).getTime())) return mentions;
  return [...mentions, { text: record.observedAt, ...dayOf(record.observedAt) }];
}

type Period = Pick<TimeMention, 'at' | 'precision'>;

/** The day of an instant, as a period. */
export function dayOf(at: Date | string): Period {
  const d = new Date(at);
  return { at: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())), precision: 'day' };
}

/** Whether some cited record speaks of a time within `period` ("in 2023" agrees with "yesterday" said in May 2023). */
export function periodSupported(period: Period, cited: readonly Dated[]): boolean {
  return cited.some((r) => recordPeriods(r).some((m) => mentionsOverlap(m, period)));
}

/** The absolute dates written in `text` ("7 May 2023", "2023-05-07"); relative words are left out. */
export function absoluteDates(text: string): PlacedMention[] {
  return placedTimeMentions(text, new Date(0)).filter((m) => /\d{4}/.test(m.text));
}

/**
 * What a note puts before the day a "recently" or "lately" was said on ("shortly before 8 May
 * 2023"): part of the time, not of the value.
 */
const DATING_QUALIFIER = /\b(?:shortly before|in the weeks before)\s+$/i;

/** `text` with its time expressions cut out, resolved against `observedAt`, and the mentions cut. */
export function withoutTimeWords(text: string, observedAt: Date | string): { rest: string; mentions: TimeMention[] } {
  const mentions = findTimeMentions(text, observedAt);
  let rest = text;
  for (const m of mentions) {
    const at = rest.indexOf(m.text);
    if (at < 0) continue;
    const before = rest.slice(0, at).replace(DATING_QUALIFIER, '');
    rest = `${before} ${rest.slice(at + m.text.length)}`;
  }
  return { rest, mentions };
}

/** The first of `periods` no cited record speaks of, written out for a verdict's detail. */
export function unsupportedPeriod(periods: readonly Period[], cited: readonly Dated[]): string | undefined {
  const missing = periods.find((p) => !periodSupported(p, cited));
  return missing ? formatMention(missing) : undefined;
}
