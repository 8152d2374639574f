import { isRecurringDay } from './recurring-days.ts';

/**
 * Time words in a record, resolved against the record's `observedAt`: a note says "on 7 May
 * 2023", never "next Tuesday", because it is read long after the record was written. Both the
 * engine (to write the absolute date) and validation (to check a note's date against its
 * evidence) use these functions, so they agree by construction. Days are UTC calendar days.
 */

export type TimePrecision = 'day' | 'week' | 'month' | 'year';

export interface TimeMention {
  /** The words as they occur in the text. */
  text: string;
  /** Start of the day, week (Monday), month or year meant, UTC. */
  at: Date;
  precision: TimePrecision;
  /**
   * A calendar day named without its own year ("December 5", or a pair's day whose year is written
   * once for both: the "6" of "6 and 7 April 2025"): its words are a date already, the year aside.
   */
  yearless?: true;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
/** English month names, January first. */
export const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  couple: 2,
  'a couple of': 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const addDays = (d: Date, n: number) => new Date(startOfDay(d).getTime() + n * DAY_MS);
const startOfWeek = (d: Date) => addDays(d, -((d.getUTCDay() + 6) % 7));
const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
const addYears = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear() + n, 0, 1));

/** Full names, then the short forms people type ("last Fri"): a name is known by its first three letters. */
const WEEKDAY = `(?:${WEEKDAYS.join('|')}|mon|tues|tue|weds|wed|thurs|thur|thu|fri|sat|sun)`;
/** A month's name or its short form, as a regular-expression alternation (no group). */
export const MONTH = `${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec`;
/**
 * A month named beside a day without its year: capitalised ("April 6", "6 April"), or in lower case
 * where the word is nothing else ("april 6"; not "may" or "march", so "I may 2" is no date).
 */
const NAMED_MONTH = [
  ...MONTH.split('|').map((name) => name.charAt(0).toUpperCase() + name.slice(1)),
  ...MONTH.split('|').filter((name) => !['may', 'march', 'mar'].includes(name)),
].join('|');
const ORDINAL = '(?:st|nd|rd|th)?';
/**
 * Words that follow "may" the verb, not May the month ("Version 2 May be out soon", "item 3 May
 * need a fix"): a day written before its month is no day when one comes next.
 */
const MODAL_COMPLEMENT =
  '(?:be|have|not|also|still|never|need|want|well|seem|help|take|come|go|get|make|vary|include|require|happen|cause|work|use|become|affect|lead|depend|change)\\b';
const COUNT = `\\d{1,2}|a couple of|couple|an|a|one|two|three|four|five|six|seven|eight|nine|ten`;

type Resolver = (
  m: RegExpMatchArray,
  now: Date,
  text: string,
) => { at: Date; precision: TimePrecision; yearless?: true } | undefined;

/**
 * A day named without its year, its month and day in the given groups: see nearestDay. With a
 * year group that matched (a pair's year written once, after its other day: "6 and 7 April
 * 2025", "April 6 and 7, 2025"), the day is in that year.
 */
const yearless =
  (monthGroup: number, dayGroup: number, yearGroup?: number): Resolver =>
  (m, now, text) => {
    const year = yearGroup === undefined ? undefined : m[yearGroup];
    if (year !== undefined) {
      const at = dateOf(+year, monthIndex(m[monthGroup]!), +m[dayGroup]!);
      return at && { at, precision: 'day', yearless: true };
    }
    const start = m.index ?? 0;
    if (isRecurringDay(text, start, start + m[0].length)) return undefined;
    return nearestDay(now, monthIndex(m[monthGroup]!), +m[dayGroup]!);
  };
/** "6 April", "the 6th of April" */
const yearlessDayFirst = yearless(2, 1);

/** Ordered: a longer phrase is tried before a phrase it contains. */
const RULES: Array<[RegExp, Resolver]> = [
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => day(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!))],
  [
    new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?(${MONTH})\\.?,? (\\d{4})\\b`, 'gi'),
    (m) => day(Date.UTC(+m[3]!, monthIndex(m[2]!), +m[1]!)),
  ],
  [
    new RegExp(`\\b(${MONTH})\\.? (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})\\b`, 'gi'),
    (m) => day(Date.UTC(+m[3]!, monthIndex(m[1]!), +m[2]!)),
  ],
  // A day without a year ("on December 5", "on 5 December"): not a range ("June 1-3"), a time
  // ("7:30") or a score ("4/5"); not a day that comes back every year.
  [
    new RegExp(
      `\\b(${NAMED_MONTH})\\.? (\\d{1,2})${ORDINAL}\\b(?![-–/:.]\\d)(?=(?: (?:and|or|&) \\d{1,2}${ORDINAL},? (\\d{4})\\b)?)`,
      'g',
    ),
    yearless(1, 2, 3),
  ],
  [
    new RegExp(
      `(?<![-–/:.]|\\d )\\b(?:[Tt]he )?(\\d{1,2})${ORDINAL} (?:of )?(${NAMED_MONTH})\\b(?! ${MODAL_COMPLEMENT})`,
      'g',
    ),
    yearlessDayFirst,
  ],
  // The other day of a pair ("April 6 and 7", "June 3 or 4", "6 and 7 April"): a day of the same month.
  [
    new RegExp(
      `(?<=\\b(${NAMED_MONTH})\\.? \\d{1,2}${ORDINAL} (?:and|or|&) )(\\d{1,2})${ORDINAL}\\b(?![-–/:.]\\d| ?%)(?:,? (\\d{4})\\b)?`,
      'g',
    ),
    yearless(1, 2, 3),
  ],
  [
    new RegExp(
      `(?<![-–/:.]|\\d )\\b(\\d{1,2})${ORDINAL}(?= (?:and|or|&) \\d{1,2}${ORDINAL} (?:of )?(${NAMED_MONTH})\\b(?:,? (\\d{4})\\b)?)`,
      'g',
    ),
    yearless(2, 1, 3),
  ],
  // The coarser forms formatMention writes ("May 2023", "in 2022"), so a note's dates read back.
  [new RegExp(`\\b(${MONTH})\\.? (\\d{4})\\b`, 'gi'), (m) => month(+m[2]!, monthIndex(m[1]!))],
  [/\b(?:in|since|until|by|from|during|before|after) ((?:19|20)\d{2})\b/gi, (m) => year(+m[1]!)],
  [new RegExp(`\\b(${COUNT}) (day|week|month|year)s? ago\\b`, 'gi'), (m, now) => shift(now, m[2]!, -count(m[1]!))],
  [new RegExp(`\\bin (${COUNT}) (day|week|month|year)s?\\b`, 'gi'), (m, now) => shift(now, m[2]!, count(m[1]!))],
  [/\b(last|next|this) (week|month|year)\b/gi, (m, now) => shift(now, m[2]!, direction(m[1]!))],
  [/\b(last|next|this) weekend\b/gi, (m, now) => weekend(now, direction(m[1]!))],
  [new RegExp(`\\b(last|next|this|coming) (${WEEKDAY})\\b`, 'gi'), (m, now) => weekday(now, m[1]!, m[2]!)],
  [
    /\b(today|tonight|this morning|this afternoon|this evening)\b/gi,
    (_m, now) => ({ at: startOfDay(now), precision: 'day' }),
  ],
  [/\b(yesterday|last night)\b/gi, (_m, now) => ({ at: addDays(now, -1), precision: 'day' })],
  [/\btomorrow\b/gi, (_m, now) => ({ at: addDays(now, 1), precision: 'day' })],
];

/** Every time expression in `text`, resolved against `observedAt`, in order of appearance. */
export function findTimeMentions(text: string, observedAt: Date | string): TimeMention[] {
  return placedTimeMentions(text, observedAt).map(({ index: _index, ...mention }) => mention);
}

/** A time mention and where its words start in the text it was found in. */
export type PlacedMention = TimeMention & { index: number };

/**
 * The same, each with where its words start in `text`: a day of a pair is a bare number ("6 and 7
 * April"), and searching for its words could find another "6" first.
 */
export function placedTimeMentions(text: string, observedAt: Date | string): PlacedMention[] {
  const now = new Date(observedAt);
  if (Number.isNaN(now.getTime())) return [];
  const taken: Array<[number, number]> = [];
  const found: PlacedMention[] = [];
  for (const [pattern, resolve] of RULES) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      const hit = resolve(m, now, text);
      if (!hit || Number.isNaN(hit.at.getTime())) continue;
      taken.push([start, end]);
      found.push({ text: m[0], ...hit, index: start });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/** Whether `text` holds a time word that only makes sense next to the day it was written. */
export function hasRelativeTime(text: string): boolean {
  return findTimeMentions(text, new Date(0)).some((m) => !/\d{4}/.test(m.text));
}

/** The absolute form a note uses: "7 May 2023", "the week of 1 May 2023", "May 2023", "2023". */
export function formatMention(m: Pick<TimeMention, 'at' | 'precision'>): string {
  const d = m.at;
  const month = MONTHS[d.getUTCMonth()]!;
  const Month = month.charAt(0).toUpperCase() + month.slice(1);
  const dayText = `${d.getUTCDate()} ${Month} ${d.getUTCFullYear()}`;
  switch (m.precision) {
    case 'day':
      return dayText;
    case 'week':
      return `the week of ${dayText}`;
    case 'month':
      return `${Month} ${d.getUTCFullYear()}`;
    case 'year':
      return String(d.getUTCFullYear());
  }
}

/** Whether `at` falls in the period a mention means (a day inside "last week" agrees with it). */
export function mentionCovers(m: Pick<TimeMention, 'at' | 'precision'>, at: Date | string): boolean {
  const t = startOfDay(new Date(at)).getTime();
  return t >= m.at.getTime() && t < periodEnd(m);
}

/** Whether two mentions' periods share a day ("in 2023" and "on 7 May 2023" do). */
export function mentionsOverlap(
  a: Pick<TimeMention, 'at' | 'precision'>,
  b: Pick<TimeMention, 'at' | 'precision'>,
): boolean {
  return a.at.getTime() < periodEnd(b) && b.at.getTime() < periodEnd(a);
}

/** When the period a mention means ends (exclusive), in milliseconds: the next day, week, month or year. */
export function periodEnd(m: Pick<TimeMention, 'at' | 'precision'>): number {
  return { day: addDays(m.at, 1), week: addDays(m.at, 7), month: addMonths(m.at, 1), year: addYears(m.at, 1) }[
    m.precision
  ].getTime();
}

function month(y: number, index: number) {
  return { at: new Date(Date.UTC(y, index, 1)), precision: 'month' as const };
}

function year(y: number) {
  return { at: new Date(Date.UTC(y, 0, 1)), precision: 'year' as const };
}

function day(ms: number) {
  return { at: new Date(ms), precision: 'day' as const };
}

/**
 * A day named without a year ("December 5") is in the year it was said, unless the same day of
 * the year before or after is nearer by more than OTHER_YEAR_DAYS: said on 12 December 2023 it is
 * 5 December 2023; "the trip on December 28" said on 3 January 2024 is 28 December 2023; "my
 * wedding on November 20" said in May is that November. An impossible day ("February 30") is
 * no date. The tense of the clause is not read: a past verb often names when something was
 * arranged, not the day ("I accepted the role starting June 1"; docs/EVALUATION.md).
 */
function nearestDay(now: Date, monthOfYear: number, dayOfMonth: number) {
  const away = (d: Date, offset: number) =>
    Math.abs(d.getTime() - now.getTime()) / DAY_MS + (offset === 0 ? 0 : OTHER_YEAR_DAYS);
  const candidates = [0, -1, 1]
    .map((offset) => ({ offset, at: dateOf(now.getUTCFullYear() + offset, monthOfYear, dayOfMonth) }))
    .filter((c): c is { offset: number; at: Date } => c.at !== undefined)
    .sort((a, b) => away(a.at, a.offset) - away(b.at, b.offset));
  return candidates[0] && { at: candidates[0].at, precision: 'day' as const, yearless: true as const };
}

/** The day, or undefined when the year has no such day (29 February of 2023). */
function dateOf(y: number, monthOfYear: number, dayOfMonth: number): Date | undefined {
  const at = new Date(Date.UTC(y, monthOfYear, dayOfMonth));
  return at.getUTCMonth() === monthOfYear && at.getUTCDate() === dayOfMonth ? at : undefined;
}

/** How much nearer another year's day must be than this year's to be the one meant. */
const OTHER_YEAR_DAYS = 120;

function monthIndex(name: string): number {
  return MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
}

function count(word: string): number {
  return /^\d+$/.test(word) ? Number(word) : (NUMBER_WORDS[word.toLowerCase()] ?? 1);
}

function direction(word: string): number {
  return { last: -1, next: 1, this: 0 }[word.toLowerCase()] ?? 0;
}

function shift(now: Date, unit: string, n: number): { at: Date; precision: TimePrecision } {
  switch (unit.toLowerCase()) {
    case 'day':
      return { at: addDays(now, n), precision: 'day' };
    case 'week':
      return { at: addDays(startOfWeek(now), 7 * n), precision: 'week' };
    case 'month':
      return { at: addMonths(now, n), precision: 'month' };
    default:
      return { at: addYears(now, n), precision: 'year' };
  }
}

/** Saturday of the weekend meant; "this weekend" on a Sunday is that weekend. */
function weekend(now: Date, n: number): { at: Date; precision: TimePrecision } {
  const saturday = addDays(startOfWeek(now), 5);
  return { at: addDays(saturday, 7 * n), precision: 'day' };
}

/** "last Tuesday": the latest before today; "next", "coming" or "this Tuesday": the next one after today (today excluded). */
function weekday(now: Date, which: string, name: string): { at: Date; precision: TimePrecision } {
  const short = name.toLowerCase().slice(0, 3);
  const target = WEEKDAYS.findIndex((d) => d.startsWith(short));
  const today = now.getUTCDay();
  if (which.toLowerCase() === 'last') return { at: addDays(now, -(((today - target + 6) % 7) + 1)), precision: 'day' };
  return { at: addDays(now, ((target - today + 6) % 7) + 1), precision: 'day' };
}
