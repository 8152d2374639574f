import { toSql } from 'pgvector';
import { memoByObject } from '../../policies/memo.ts';

/**
 * The query vector as the statement parameter pgvector reads (its text form, about 8 kB for 384
 * dimensions). One recall passes the same vector to several statements (the note and record
 * channels, their distances, the standing preferences): it is formatted once.
 */
export const vectorParam: (vector: readonly number[]) => string = memoByObject((vector) => toSql(vector) as string);
