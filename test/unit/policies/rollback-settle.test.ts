import { describe, expect, it } from 'vitest';
import { contradictInSlot, contradictedBy, restorable } from '../../../policies/rollback-settle.ts';
import type { NoteContent } from '../../../src/contracts/note.ts';
import type { NoteStructure } from '../../../src/contracts/note-structure.ts';

const ref = {
  recordId: '01JD0000000000000000000001',
  objectKey: 'raw/tenant=t/date=2026-11-02/unit-1.jsonl.gz',
  line: 1,
  contentHash: 'a'.repeat(64),
};

function note(claim: string, over: Partial<NoteContent> = {}): NoteContent {
  return {
    scope: { level: 'task_type', key: 'invoice_report' },
    kind: 'fact',
    claim,
    evidence: [ref],
    sourceKind: 'user_correction',
    confidence: 0.9,
    importance: 0.9,
    validFrom: '2026-11-02T08:00:00.000Z',
    lastConfirmedAt: '2026-11-02T08:00:00.000Z',
    ...over,
  };
}

const prefers = (value: string, over: Partial<NoteStructure> = {}): NoteStructure => ({
  subject: { type: 'user', id: 'u-dan' },
  attribute: 'prefers',
  value,
  polarity: 'positive',
  conditions: [],
  exclusive: true,
  ...over,
});

const CENTS = note('The billing API returns amounts in cents.');
const DOLLARS = note('The billing API returns amounts already in dollars, not in cents.');
const TIMEOUT = note('The export tool times out on files larger than 10 MB.', { kind: 'tool_behavior' });

describe('contradictInSlot: two notes recall must not both show', () => {
  const cases: Array<[string, NoteContent, NoteContent, boolean]> = [
    ['a correction against the claim it corrects (words)', DOLLARS, CENTS, true],
    ['the same pair the other way round', CENTS, DOLLARS, true],
    ['unrelated claims', CENTS, TIMEOUT, false],
    ['the same claims in another scope', CENTS, { ...DOLLARS, scope: { level: 'tenant', key: 't' } }, false],
    [
      'one exclusive slot, two values (structure)',
      note('Dan prefers tea.', { sourceKind: 'user_statement', structure: prefers('tea') }),
      note('Dan prefers coffee.', { sourceKind: 'user_statement', structure: prefers('coffee') }),
      true,
    ],
    [
      'two slots (structure), even with shared words',
      note('Dan prefers tea.', { sourceKind: 'user_statement', structure: prefers('tea') }),
      note('Dan prefers tea when writing reports.', {
        sourceKind: 'user_statement',
        structure: prefers('tea', { conditions: [{ field: 'task_type', op: 'eq', value: 'report' }] }),
      }),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, a, b, expected) => {
    expect(contradictInSlot(a, b)).toBe(expected);
  });
});

describe('contradictedBy and restorable', () => {
  const active = [
    { noteId: 'dollars', content: DOLLARS },
    { noteId: 'timeout', content: TIMEOUT },
  ];

  it('names the active notes a revived note contradicts, never itself', () => {
    expect(contradictedBy({ noteId: 'cents', content: CENTS }, active)).toEqual(['dollars']);
    expect(contradictedBy({ noteId: 'dollars', content: DOLLARS }, active)).toEqual([]);
  });

  it('restores a note only while it stands with the active set and the notes restored before it', () => {
    const tea = note('Dan prefers tea.', { sourceKind: 'user_statement', structure: prefers('tea') });
    const coffee = note('Dan prefers coffee.', { sourceKind: 'user_statement', structure: prefers('coffee') });
    const candidates = [
      { noteId: 'cents', content: CENTS },
      { noteId: 'tea', content: tea },
      { noteId: 'coffee', content: coffee },
    ];
    expect(restorable(candidates, [active[1]!])).toEqual({
      restore: ['cents', 'tea'],
      blocked: [{ noteId: 'coffee', by: 'tea' }],
    });
    expect(restorable(candidates.slice(0, 1), active)).toEqual({
      restore: [],
      blocked: [{ noteId: 'cents', by: 'dollars' }],
    });
  });
});
