import { describe, expect, it } from 'vitest';
import {
  CONTRADICTED_RECALL_FLOOR,
  recallStanding,
  settleSlots,
  slotConflict,
} from '../../../policies/recall-conflicts.ts';
import type { NoteStructure } from '../../../src/contracts/note-structure.ts';

const dan = (value: string, extra: Partial<NoteStructure> = {}): NoteStructure => ({
  subject: { type: 'user', id: 'u-dan' },
  attribute: 'prefers',
  value,
  exclusive: true,
  ...extra,
});
const went = (value: string, at: string): NoteStructure => ({
  subject: { type: 'entity', id: 'Caroline' },
  attribute: 'went to',
  value,
  time: { at },
});

describe('slotConflict', () => {
  const cases: Array<[string, NoteStructure | null, NoteStructure | null, boolean]> = [
    ['another value of a one-value attribute', dan('aisle seats'), dan('window seats'), true],
    ['the same value, reworded case', dan('aisle seats'), dan('Aisle  seats'), true],
    ['the same value, opposite polarity', dan('aisle seats'), dan('aisle seats', { polarity: 'negative' }), true],
    ['another subject', dan('aisle seats'), { ...dan('aisle seats'), subject: { type: 'user', id: 'u-eve' } }, false],
    [
      'other conditions are another slot',
      dan('aisle seats'),
      dan('window seats', { conditions: [{ field: 'flight', op: 'eq', value: 'night' }] }),
      false,
    ],
    [
      'places someone went to accumulate',
      went('a support group', '2023-05-07T00:00:00.000Z'),
      went('a pottery class', '2023-07-01T00:00:00.000Z'),
      false,
    ],
    ['a note without structure never conflicts by slot', dan('aisle seats'), null, false],
  ];
  it.each(cases)('%s', (_name, a, b, expected) => expect(slotConflict(a, b)).toBe(expected));
});

describe('recallStanding', () => {
  it.each([
    ['never contradicted', null, 0.2, 'clear'],
    ['contradicted, still confident', '2026-01-01T00:00:00.000Z', 0.54, 'contradicted'],
    ['contradicted at the floor', '2026-01-01T00:00:00.000Z', CONTRADICTED_RECALL_FLOOR, 'contradicted'],
    ['contradicted below the floor', '2026-01-01T00:00:00.000Z', 0.32, 'left_out'],
  ] as const)('%s', (_name, contradictedAt, confidence, expected) =>
    expect(recallStanding({ contradictedAt, confidence })).toBe(expected),
  );
});

describe('settleSlots', () => {
  it('keeps the best-ranked note of a slot and lists the others under it', () => {
    const ranked = [
      { id: 'N1', s: dan('window seats') },
      { id: 'N2', s: went('a support group', '2023-05-07T00:00:00.000Z') },
      { id: 'N3', s: dan('aisle seats') },
      { id: 'N4', s: null },
    ];
    const settled = settleSlots(ranked, (n) => n.s);
    expect(settled.map((x) => [x.kept.id, x.suppressed.map((s) => s.id)])).toEqual([
      ['N1', ['N3']],
      ['N2', []],
      ['N4', []],
    ]);
  });
});
