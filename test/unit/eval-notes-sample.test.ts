import { describe, expect, it } from 'vitest';
import type { NoteVersion } from '../../src/contracts/note.ts';
import { drawNotesSample } from '../../tools/eval/notes-sample/draw.ts';
import { renderNotesSample } from '../../tools/eval/notes-sample/render.ts';
import { rubricFlags, type RubricCheck } from '../../tools/eval/notes-sample/rubric.ts';
import type { EvalCase, EvalRecord } from '../../tools/eval/types.ts';

describe('automatic rubric checks', () => {
  const record = 'I asked for an aisle seat, not a window seat.';
  const cases: Array<[string, string[], RubricCheck[]]> = [
    ['u-dan prefers aisle seats over window seats', [record], []],
    ['I asked for an aisle seat, not a window seat.', [record], ['first_person', 'verbatim']],
    ['u-dan: "I asked for an aisle seat, not a window seat."', [record], ['first_person', 'verbatim']],
    ["Caroline's daughter's birthday is next Tuesday", ["My daughter's birthday is next Tuesday"], ['relative_time']],
    ['Bob adopted a dog 3 weeks ago', ['We adopted a dog 3 weeks ago!'], ['relative_time']],
    ['Melanie went camping last month with our kids', [], ['first_person', 'relative_time']],
    ['Melanie is carving out some me-time each day', [], []],
    ['Can you check my refund for order 1182?', [], ['first_person', 'question_or_request']],
    ['Please send the report as a table', [], ['question_or_request']],
    ['Caroline went to an LGBTQ support group on 7 May 2023', ['I went to a LGBTQ support group yesterday'], []],
    // A lesson that quotes a tool's error is not a copy of the error.
    [
      'refunds.create over $100 requires a manager approval id; the call failed without one',
      ['refunds over $100 need a manager approval id'],
      [],
    ],
    // A cut of a longer record is a copy.
    [
      'the flight HAT001 is full in economy',
      ['Error: the flight HAT001 is full in economy, try business'],
      ['verbatim'],
    ],
    ['Amounts are in cents', ['amounts are in cents'], ['verbatim']],
    ['Time is money', [], []],
  ];
  it.each(cases)('%s → %j', (claim, cited, flags) => {
    expect(rubricFlags(claim, cited)).toEqual(flags);
  });
});

const rec = (i: number, text: string): EvalRecord => ({
  goldId: `D1:${i}`,
  goldSession: 'S1',
  actor: 'Ann',
  record: {
    id: `01JD00000000000000000000${String(i).padStart(2, '0')}`,
    tenantId: 'eval',
    agentId: 'a',
    sessionId: 's',
    kind: 'user_message',
    observedAt: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`,
    text,
  },
});
const records = Array.from({ length: 30 }, (_, i) => rec(i, `I went hiking on day ${i}`));
const evalCase = { dataset: 'locomo', caseId: 'conv-1', records, queries: [], failedRuns: [] } as EvalCase;
const note = (i: number, status: NoteVersion['status'] = 'active', extra: object = {}): NoteVersion =>
  ({
    noteId: `n${String(29 - i).padStart(2, '0')}`,
    version: 1,
    status,
    kind: 'fact',
    scope: { level: 'user', key: 'Ann' },
    sourceKind: 'user_statement',
    confidence: 0.7,
    claim: i % 2 === 0 ? `Ann went hiking on day ${i}` : `Ann: I went hiking on day ${i}`,
    evidence: [{ recordId: records[i]?.record.id }],
    ...extra,
  }) as unknown as NoteVersion;

describe('the note-quality sample', () => {
  const notes = records.map((_, i) => note(i));

  it('draws the same notes for the same notes in any order, from committed notes only', () => {
    const a = drawNotesSample([{ evalCase, notes }], 10);
    const b = drawNotesSample([{ evalCase, notes: [...notes].reverse() }], 10);
    expect(a.drawn.map((s) => s.note.claim)).toEqual(b.drawn.map((s) => s.note.claim));
    expect(new Set(a.drawn.map((s) => s.note.noteId)).size).toBe(10);
    const other = drawNotesSample([{ evalCase, notes }], 10, 10);
    expect(other.drawn.map((s) => s.note.noteId)).not.toEqual(a.drawn.map((s) => s.note.noteId));
    const withStaged = drawNotesSample([{ evalCase, notes: [...notes, note(0, 'staged'), note(1, 'erased')] }], 50);
    expect(withStaged).toMatchObject({ pool: 30 });
    expect(withStaged.drawn).toHaveLength(30);
  });

  it('shows each note with its cited records, structure when present, checks and counts', () => {
    const structured = note(4, 'active', { structure: { subject: 'Ann', attribute: 'went hiking', value: 'day 4' } });
    const sample = drawNotesSample([{ evalCase, notes: [structured, note(5)] }], 50);
    expect(sample.drawn.map((s) => s.flags)).toEqual([[], ['first_person', 'verbatim']]);
    const md = renderNotesSample('locomo', sample);
    expect(md).toContain("2 notes drawn at random (seed 9) from the run's 2 committed notes");
    expect(md).toContain('| first-person word in the claim (I, my, me, we, our) | 1 |');
    expect(md).toContain('| claim copied verbatim from one cited record | 1 |');
    expect(md).toContain('## 1. fact · user:Ann · user_statement · confidence 0.70 · active');
    expect(md).toContain('"subject": "Ann"');
    expect(md).toContain('- D1:5 (user_message, Ann, 2024-01-01T00:00:05Z): I went hiking on day 5');
    expect(md.match(/```json/g)).toHaveLength(1);
  });
});
