import pg from 'pg';

/** timestamptz's type oid. */
const TIMESTAMPTZ = 1184;

/** A timestamptz as PostgreSQL writes it in a UTC session: `2023-05-08 13:56:00.123456+00`. */
const PG_UTC = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)?\+00$/;

const asDate = pg.types.getTypeParser(TIMESTAMPTZ, 'text');

/**
 * A timestamptz straight to the ISO 8601 string the row schemas produce (`isoColumn`), without a
 * Date in between: building a Date and formatting it again cost a few microseconds per value,
 * and a recall reads hundreds of them. Milliseconds are truncated as the Date path truncates them
 * (`1000 * parseFloat(fraction)`, floating-point error included), so both give the same string.
 * Anything else (another session time zone, BC, infinity) stays a Date.
 */
export function timestamptzAsIso(text: string): string | Date {
  const m = PG_UTC.exec(text);
  if (m === null) return asDate(text) as Date;
  const ms = m[3] === undefined ? 0 : Math.trunc(1000 * parseFloat(m[3]));
  return `${m[1]}T${m[2]}.${String(ms).padStart(3, '0')}Z`;
}

/** The pool's type parsers: pg's own, but timestamptz as ISO strings (timestamptzAsIso). */
export const PG_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && (format ?? 'text') === 'text'
      ? timestamptzAsIso
      : pg.types.getTypeParser(oid, format as 'text'),
};
