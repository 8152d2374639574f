import { describe, expect, it } from 'vitest';
import type { ArchivedRecord } from '../../../../src/contracts/episode.ts';
import type { NoteKind } from '../../../../src/contracts/note.ts';
import type { NoteStructure } from '../../../../src/contracts/note-structure.ts';
import type { StructureAnswer } from '../../../../src/engine/llm/answer.ts';
import { fallbackClaim, toStructure, withAbsoluteDates } from '../../../../src/engine/llm/claim.ts';
import { archived } from '../../../helpers/episodes.ts';

const said = (observedAt: string, text: string): ArchivedRecord =>
  archived([
    {
      id: '01JD0000000000000000000000',
      tenantId: 'acme',
      agentId: 'a',
      sessionId: 's',
      kind: 'user_message',
      source: 'user',
      userId: 'Caroline',
      observedAt,
      text,
    },
  ])[0] as ArchivedRecord;

// Monday 8 May 2023.
const group = said('2023-05-08T14:00:00Z', 'I went to a support group yesterday; the next one is next Tuesday.');

describe('withAbsoluteDates: relative words in a claim become the dates they meant for the record that says them', () => {
  it.each([
    ['Caroline went to a support group yesterday.', 'Caroline went to a support group on 7 May 2023.'],
    ['Caroline goes again next Tuesday.', 'Caroline goes again on 9 May 2023.'],
    ['Caroline went to a support group on yesterday.', 'Caroline went to a support group on 7 May 2023.'],
    ['Caroline went to a support group on 7 May 2023.', 'Caroline went to a support group on 7 May 2023.'],
    ['Caroline likes support groups.', 'Caroline likes support groups.'],
  ])('%s → %s', (claim, expected) => {
    expect(withAbsoluteDates(claim, [group])).toBe(expected);
  });

  it('completes a day named without its year where it stands, and both days of a pair', () => {
    const shoots = said('2024-03-30T10:00:00Z', 'I had to reject the weekend shoots on April 6 and 7.');
    expect(withAbsoluteDates('Caroline had to reject the weekend shoots on April 6 and 7.', [shoots])).toBe(
      'Caroline had to reject the weekend shoots on 6 April 2024 and 7 April 2024.',
    );
    const dayFirst = said('2024-03-30T10:00:00Z', 'Yesterday I had to reject the shoots on 6 and 7 April.');
    expect(withAbsoluteDates('Caroline had to reject the shoots on 6 and 7 April.', [dayFirst])).toBe(
      'Caroline had to reject the shoots on 6 April 2024 and 7 April 2024.',
    );
    const due = said('2024-03-30T10:00:00Z', 'My essay is due June 15th.');
    expect(withAbsoluteDates("Caroline's essay is due June 15th.", [due])).toBe(
      "Caroline's essay is due 15 June 2024.",
    );
  });

  it('reads a time word against the cited record that says it, not the latest one', () => {
    const later = said('2023-06-20T10:00:00Z', 'Thanks for listening.');
    expect(withAbsoluteDates('Caroline went to a support group yesterday.', [group, later])).toBe(
      'Caroline went to a support group on 7 May 2023.',
    );
  });
});

describe('toStructure: the time comes from the records, not from the model’s arithmetic', () => {
  const base: StructureAnswer = {
    subject: { type: 'user', id: ' Caroline ' },
    attribute: 'went to',
    value: 'a support group',
    polarity: 'positive',
  };
  it.each<[StructureAnswer['time'], NoteStructure['time']]>([
    [
      { source: 'yesterday', at: '2023-05-01' },
      { at: '2023-05-07T00:00:00.000Z', source: 'yesterday' },
    ],
    [{ at: '2023-05-07' }, { at: '2023-05-07T00:00:00.000Z' }],
    [{ at: '7 May 2023' }, { at: '2023-05-07T00:00:00.000Z' }],
    [{ until: '2023-05-09T18:00:00Z' }, { until: '2023-05-09T18:00:00Z' }],
    [{ at: 'soon' }, { at: 'soon' }], // left for validation to refuse
  ])('%o → %o', (time, expected) => {
    expect(toStructure({ ...base, time }, [group])).toEqual({
      subject: { type: 'user', id: 'Caroline' },
      attribute: 'went to',
      value: 'a support group',
      polarity: 'positive',
      conditions: [],
      time: expected,
    });
  });
});

describe('fallbackClaim: a plain third-person sentence from the structure', () => {
  const s = (fields: Partial<NoteStructure>): NoteStructure => ({
    subject: { type: 'user', id: 'u-dan' },
    attribute: 'prefers',
    value: 'aisle seats',
    polarity: 'positive',
    ...fields,
  });
  it.each<[NoteKind, NoteStructure, string]>([
    ['preference', s({ contrast: 'window seats' }), 'u-dan prefers aisle seats over window seats.'],
    ['preference', s({ polarity: 'negative' }), 'u-dan does not prefer aisle seats.'],
    [
      'tool_behavior',
      s({
        subject: { type: 'tool', id: 'crm.export' },
        attribute: 'times out with',
        value: 'pageSize 1000',
        contrast: 'pageSize 200',
      }),
      'crm.export times out with pageSize 1000; pageSize 200 works.',
    ],
    [
      'constraint',
      s({
        subject: { type: 'tool', id: 'refunds.create' },
        attribute: 'requires',
        value: 'a manager approval id',
        conditions: [{ field: 'arg.amount', op: 'gt', value: 100 }],
      }),
      'refunds.create requires a manager approval id when arg.amount is over 100.',
    ],
    [
      'fact',
      s({
        subject: { type: 'entity', id: 'Caroline' },
        attribute: 'went to',
        value: 'a support group',
        time: { at: '2023-05-07T00:00:00.000Z' },
      }),
      'Caroline went to a support group on 7 May 2023.',
    ],
    [
      'fact',
      s({ subject: { type: 'entity', id: 'Caroline' }, attribute: 'went to', value: 'Paris', polarity: 'negative' }),
      'Caroline never went to Paris.',
    ],
    ['fact', s({ attribute: 'is', value: 'a vegetarian', polarity: 'negative' }), 'u-dan is not a vegetarian.'],
    ['fact', s({ attribute: 'has', value: 'a dog', polarity: 'negative' }), 'u-dan does not have a dog.'],
  ])('%s %o → %s', (kind, structure, claim) => {
    expect(fallbackClaim(kind, structure)).toBe(claim);
  });
});
