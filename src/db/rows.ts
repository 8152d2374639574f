import { z } from 'zod';

/**
 * Column parsers shared by the row schemas. The two drivers disagree on some types (`pg`
 * returns int8 as a string, PGlite as a number or bigint), so rows are normalised here.
 */

/** An ISO 8601 instant in UTC with milliseconds, as `Date.prototype.toISOString` writes it. */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * timestamptz → ISO 8601 in UTC. PGlite returns a Date; the pg pool an ISO string already
 * (src/db/pg-timestamps.ts), kept as it is; any other string is read as a date.
 */
export const isoColumn = z
  .union([z.date(), z.string()])
  .transform((v) => (typeof v === 'string' && ISO_UTC.test(v) ? v : new Date(v).toISOString()));
export const isoColumnNullable = isoColumn.nullable();

/** int4/int8 → number (int8 is a string in `pg` and may be a bigint in PGlite). */
export const intColumn = z
  .union([z.number(), z.string(), z.bigint()])
  .transform((v) => Number(v))
  .pipe(z.number().int());
