import { findTimeMentions, MONTHS, periodEnd, type TimeMention } from './dates.ts';

const DAY_MS = 86_400_000;

/**
 * The times a question names outright ("on 7 July, 2023", "in December 2023", "on May 3"): its
 * mentions with a year or a named day, resolved as a record's are (policies/dates.ts); failing
 * those, a month named alone ("in June"). A relative one ("last weekend") is left out: it would
 * be read against the day the question is asked, not the day it asks about.
 */
export function timesNamedIn(question: string, askedAt: Date): TimeMention[] {
  const named = findTimeMentions(question, askedAt).filter((m) => m.yearless === true || /\d{4}/.test(m.text));
  return named.length > 0 ? named : monthsNamedAlone(question, askedAt);
}

/** "in June", "during May": a month named without its year (in lower case, not "may" or "march", which are words too). */
const MONTH_ALONE = new RegExp(
  `\\b(?:[Ii]n|[Dd]uring) (${[
    ...MONTHS.map((m) => m.charAt(0).toUpperCase() + m.slice(1)),
    ...MONTHS.filter((m) => m !== 'may' && m !== 'march'),
  ].join('|')})\\b(?!,? \\d)`,
  'g',
);

/** A month named alone ("camping in June"): the last such month begun by the time of asking. */
function monthsNamedAlone(question: string, askedAt: Date): TimeMention[] {
  return [...question.matchAll(MONTH_ALONE)].map((m) => {
    const month = MONTHS.indexOf((m[1] as string).toLowerCase());
    const year = askedAt.getUTCFullYear() - (month > askedAt.getUTCMonth() ? 1 : 0);
    return { text: m[0], at: new Date(Date.UTC(year, month, 1)), precision: 'month' as const };
  });
}

/** A span of time records were observed in: [from, to). */
export interface TimeWindow {
  from: Date;
  to: Date;
}

/**
 * When the things said at the times a question names were said: a named day and the
 * `slackDays` after it (people tell of a day in the days after it), a week, a month. A year is
 * left out: it narrows a tenant's records too little to read them by.
 */
export function namedTimeWindows(question: string, askedAt: Date, slackDays: number): TimeWindow[] {
  return timesNamedIn(question, askedAt)
    .filter((m) => m.precision !== 'year')
    .map((m) => {
      const slack = m.precision === 'day' ? slackDays * DAY_MS : 0;
      return { from: m.at, to: new Date(periodEnd(m) + slack) };
    });
}

/** Whether an instant falls in one of the windows. */
export function inTimeWindows(observedAt: string, windows: readonly TimeWindow[]): boolean {
  const t = Date.parse(observedAt);
  return windows.some((w) => t >= w.from.getTime() && t < w.to.getTime());
}
