import { CronExpressionParser } from 'cron-parser';
import { isTimeZone } from '../config.ts';

/** The shorthands both Temporal's Schedules and the parser understand. */
const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']);

/**
 * Checks a cron expression the way the Temporal server will read it, before it is sent, so a
 * typo is a usage error naming the problem rather than a server error: five fields (minute hour
 * day-of-month month day-of-week, with names such as MON-FRI or JAN) or one of the shorthands
 * `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. Returns the reason, or undefined.
 */
export function validateCron(cron: string): string | undefined {
  const text = cron.trim();
  if (text.startsWith('@')) {
    return MACROS.has(text.toLowerCase())
      ? undefined
      : `unknown shorthand ${text} (use one of ${[...MACROS].join(', ')})`;
  }
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    return `expected 5 fields (minute hour day-of-month month day-of-week) or a shorthand such as @daily, got ${fields.length} fields`;
  try {
    CronExpressionParser.parse(text, { strict: false });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Whether `timeZone` is an IANA zone this runtime knows (the server uses the same database). */
export function validateTimeZone(timeZone: string): string | undefined {
  return isTimeZone(timeZone)
    ? undefined
    : `unknown time zone ${JSON.stringify(timeZone)} (expected an IANA name such as UTC or Europe/Berlin)`;
}

/** The next `count` times the expression fires after `from`, in `timeZone` — what `schedule apply` shows. */
export function nextFireTimes(cron: string, timeZone: string, count: number, from: Date): Date[] {
  const expression = CronExpressionParser.parse(cron.trim(), { tz: timeZone, currentDate: from });
  return expression.take(count).map((d) => d.toDate());
}
