import { z } from 'zod';

/**
 * Column parsers shared by the row schemas. The two drivers disagree on some types (`pg`
 * returns int8 as a string, PGlite as a number or bigint), so rows are normalised here.
 */

/** timestamptz → ISO 8601 in UTC (both drivers return a Date; strings are tolerated). */
export const isoColumn = z.union([z.date(), z.string()]).transform((v) => new Date(v).toISOString());
export const isoColumnNullable = isoColumn.nullable();

/** int4/int8 → number (int8 is a string in `pg` and may be a bigint in PGlite). */
export const intColumn = z
  .union([z.number(), z.string(), z.bigint()])
  .transform((v) => Number(v))
  .pipe(z.number().int());
