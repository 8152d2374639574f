import { describe, expect, it } from 'vitest';
import { graphReadMissedNearer } from '../../../src/recall/read-candidates.ts';
import { noteKey, type CandidateRow } from '../../../src/recall/queries.ts';
import type { NoteVersion } from '../../../src/contracts/note.ts';

const row = (noteId: string, distance: number | null): CandidateRow => ({
  version: { noteId, version: 1 } as NoteVersion,
  distance,
  textRank: 0,
});
const known = (entries: Array<[string, number | null]>) => new Map(entries.map(([id, d]) => [noteKey(id, 1), d]));

describe('graphReadMissedNearer', () => {
  const read = [row('a', 0.7), row('b', 0.75), row('c', 0.8)];

  it('is true when a row another channel read is nearer than the read’s nearest and not in it', () => {
    expect(graphReadMissedNearer(read, known([['z', 0.3]]))).toBe(true);
  });

  it('is false when the nearer row is one the read holds, or the other rows are farther', () => {
    expect(
      graphReadMissedNearer(
        read,
        known([
          ['a', 0.7],
          ['b', 0.75],
        ]),
      ),
    ).toBe(false);
    expect(
      graphReadMissedNearer(
        read,
        known([
          ['y', 0.72],
          ['z', 0.9],
        ]),
      ),
    ).toBe(false);
  });

  it('is false without a distance to compare: a row without a vector, or an empty read', () => {
    expect(graphReadMissedNearer(read, known([['z', null]]))).toBe(false);
    expect(graphReadMissedNearer([], known([['z', 0.1]]))).toBe(false);
    expect(graphReadMissedNearer([row('a', null)], known([['z', 0.1]]))).toBe(false);
  });
});
