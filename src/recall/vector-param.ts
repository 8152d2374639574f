import { toSql } from 'pgvector';

const literals = new WeakMap<readonly number[], string>();

/**
 * The query vector as the statement parameter pgvector reads (its text form, about 8 kB for 384
 * dimensions). One recall passes the same vector to several statements (the note and record
 * channels, their distances, the standing preferences): it is formatted once.
 */
export function vectorParam(vector: readonly number[]): string {
  let literal = literals.get(vector);
  if (literal === undefined) {
    literal = toSql(vector) as string;
    literals.set(vector, literal);
  }
  return literal;
}
