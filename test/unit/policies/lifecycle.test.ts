import { describe, expect, it } from 'vitest';
import { CONTRADICTION_FACTOR } from '../../../policies/confidence.ts';
import { RETIRE_BELOW_CONFIDENCE, contradictionOutcome } from '../../../policies/lifecycle-contradiction.ts';
import { relate, relateBySlot } from '../../../policies/lifecycle-match.ts';
import { expiryOf } from '../../../policies/lifecycle-ttl.ts';
import { reconcile, type KnownNote } from '../../../policies/reconcile.ts';
import type { Proposal } from '../../../src/contracts/episode.ts';
import type { NoteContent } from '../../../src/contracts/note.ts';
import type { NoteStructure } from '../../../src/contracts/note-structure.ts';

const ref = (n: number) => ({
  recordId: `01JD00000000000000000000${String(n).padStart(2, '0')}`,
  objectKey: 'raw/tenant=t/date=2026-11-02/unit-1.jsonl.gz',
  line: n,
  contentHash: 'a'.repeat(64),
});

function content(claim: string, over: Partial<NoteContent> = {}): NoteContent & { sourceCount: number } {
  return {
    scope: { level: 'task_type', key: 'invoice_report' },
    kind: 'fact',
    claim,
    evidence: [ref(1)],
    sourceKind: 'user_correction',
    confidence: 0.9,
    importance: 0.9,
    validFrom: '2026-11-02T08:00:00.000Z',
    lastConfirmedAt: '2026-11-02T08:00:00.000Z',
    sourceCount: 1,
    ...over,
  } as NoteContent & { sourceCount: number };
}

const slot = (value: string, over: Partial<NoteStructure> = {}): NoteStructure => ({
  subject: { type: 'user', id: 'u-dan' },
  attribute: 'prefers',
  value,
  polarity: 'positive',
  conditions: [],
  ...over,
});

describe('relate by slot: the structure decides, whatever the wording', () => {
  it.each([
    ['same slot, value and polarity', slot('aisle seats'), slot('Aisle  seats'), 'restates'],
    [
      'a clock time written with or without a space',
      slot('flights that depart after 8 am and before 9 pm', { exclusive: true }),
      slot('flights that depart after 8am and before 9pm', { exclusive: true }),
      'restates',
    ],
    [
      'same value, the other polarity',
      slot('aisle seats'),
      slot('aisle seats', { polarity: 'negative' }),
      'contradicts',
    ],
    [
      'another value of an exclusive slot',
      slot('aisle seats', { exclusive: true }),
      slot('window seats'),
      'contradicts',
    ],
    [
      'another value of a slot that accumulates',
      slot('Paris', { attribute: 'went to' }),
      slot('Rome', { attribute: 'went to' }),
      'unrelated',
    ],
    [
      'another subject',
      slot('aisle seats'),
      slot('aisle seats', { subject: { type: 'user', id: 'u-eve' } }),
      'unrelated',
    ],
    [
      'another condition',
      slot('200', { conditions: [{ field: 'tool', op: 'eq', value: 'crm.export' }] }),
      slot('200'),
      'unrelated',
    ],
    [
      'one event on two days',
      slot('support group', { attribute: 'went to', time: { at: '2023-05-07T00:00:00Z' } }),
      slot('support group', { attribute: 'went to', time: { at: '2023-06-09T00:00:00Z' } }),
      'unrelated',
    ],
    [
      // A bound is not a day: told again a month later, it is the same event.
      'one event told on two days, each bounded by its telling',
      slot('a cross necklace', { attribute: 'bought', time: { by: '2023-04-10T00:00:00Z' } }),
      slot('a cross necklace', { attribute: 'bought', time: { by: '2023-05-12T00:00:00Z' } }),
      'restates',
    ],
    [
      // What held as of the day it was told still holds when told again: one state, not two events.
      'one state told as holding on two days',
      slot('social media presence', {
        attribute: 'is expanding',
        time: { at: '2023-04-03T10:00:00Z', source: 'as of' },
      }),
      slot('social media presence', {
        attribute: 'is expanding',
        time: { at: '2023-05-12T10:00:00Z', source: 'as of' },
      }),
      'restates',
    ],
    [
      'one state read "currently" on two days',
      slot('The Lean Startup', { attribute: 'is reading', time: { at: '2023-05-27T10:00:00Z', source: 'currently' } }),
      slot('The Lean Startup', { attribute: 'is reading', time: { at: '2023-06-02T10:00:00Z', source: 'currently' } }),
      'restates',
    ],
  ] as const)('%s → %s', (_label, a, b, relation) => {
    expect(relateBySlot(a, b)).toBe(relation);
    expect(relateBySlot(b, a)).toBe(relation);
  });

  it('two structured claims worded apart are compared by their fields, not their words', () => {
    const a = content('u-dan prefers aisle seats over window seats', { structure: slot('aisle seats') });
    const b = content('Dan always picks the aisle', { structure: slot('aisle seats') });
    expect(relate(a, b)).toBe('restates');
  });

  it('the same words in another order restate, though they parse into another slot; another id does not', () => {
    const said = (claim: string, attribute: string, value: string) =>
      content(claim, {
        sourceKind: 'user_statement',
        structure: slot(value, { subject: { type: 'user', id: 'customer-14' }, attribute }),
      });
    const a = said(
      "customer-14's user ID is chen_lee_6825, and the reservation ID is YAX4DR.",
      'user ID is',
      'chen_lee_6825',
    );
    const b = said(
      "customer-14's reservation ID is YAX4DR, and the user ID is chen_lee_6825.",
      'reservation ID is',
      'YAX4DR',
    );
    const c = said(
      "customer-14's reservation ID is YAX4DR, and the user ID is chen_lee_9999.",
      'reservation ID is',
      'YAX4DR',
    );
    expect(relate(a, b)).toBe('restates');
    expect(relate(a, c)).toBe('unrelated');
  });
});

describe('relate by words (notes without a structure)', () => {
  const billing = 'Amounts from the billing API are in cents; divide by 100.';
  it.each([
    ['a rewording of one lesson', 'The billing API returns cents. Divide every amount by 100.', billing, 'restates'],
    ['another rewording', 'The billing API gives amounts in cents, so divide them by 100.', billing, 'restates'],
    [
      'the same claim negated',
      'The billing API does not return amounts in cents.',
      'The billing API returns amounts in cents.',
      'contradicts',
    ],
    [
      'a number changed',
      'Refunds are accepted within 14 days of delivery.',
      'Refunds are accepted within 30 days of delivery.',
      'contradicts',
    ],
    [
      'a negation over words the other does not use',
      'The refunds API returns dollars already.',
      'Amounts from the refunds API are already in dollars; do not divide them.',
      'restates',
    ],
    ['few shared words', 'I asked for a table, not a paragraph.', 'I want reports as a table, not prose.', 'unrelated'],
  ] as const)('%s → %s', (_label, fresh, known, relation) => {
    expect(relate(content(fresh), content(known))).toBe(relation);
  });

  it.each([
    [
      'a correction about refunds does not speak of billing',
      'No, amounts from the refunds API are already in dollars; do not divide them.',
      'You refunded $3,115.00 in March. No, amounts from the refunds API are already in dollars; do not divide them.',
      'unrelated',
    ],
    [
      'a correction answering a message about cents does',
      'Since billing API v2 amounts are already in dollars.',
      'Converting from cents: $3.11. Since billing API v2 amounts are already in dollars. The total is $310.50.',
      'contradicts',
    ],
  ] as const)('%s', (_label, fresh, evidence, relation) => {
    expect(relate(content(fresh), content('The billing API returns amounts in cents; divide by 100.'), evidence)).toBe(
      relation,
    );
  });
});

describe('expiry by kind, from the evidence', () => {
  const said = '2026-05-01T10:00:00.000Z';
  it.each([
    ['a plan expires after its day', 'fact', { at: '2026-05-05T16:00:00.000Z' }, '2026-05-06T00:00:00.000Z'],
    ['an explicit end', 'constraint', { until: '2026-06-01T00:00:00.000Z' }, '2026-06-01T00:00:00.000Z'],
    ['a past event stays true', 'fact', { at: '2026-04-20T00:00:00.000Z' }, null],
    ['a preference does not expire', 'preference', { at: '2026-05-05T16:00:00.000Z' }, null],
    ['no time, no expiry', 'fact', undefined, null],
  ] as const)('%s', (_label, kind, time, until) => {
    const structure = slot('a dentist appointment', { attribute: 'has', ...(time ? { time } : {}) });
    expect(expiryOf({ kind, structure, validFrom: said })).toBe(until);
  });
});

describe('repeated contradiction', () => {
  it.each([
    ['one contradiction downgrades', 0.9 * CONTRADICTION_FACTOR, 'downgrade'],
    ['two still downgrade', 0.9 * CONTRADICTION_FACTOR ** 2, 'downgrade'],
    ['the third retires a 0.9 note', 0.9 * CONTRADICTION_FACTOR ** 3, 'retire'],
  ] as const)('%s', (_label, confidence, outcome) => {
    expect(contradictionOutcome({ confidence, contradictedAt: '2026-11-03T00:00:00Z' })).toBe(outcome);
  });
  it('a low confidence without a contradiction is no reason to retire', () =>
    expect(contradictionOutcome({ confidence: RETIRE_BELOW_CONFIDENCE / 2, contradictedAt: null })).toBe('downgrade'));
});

const known = (noteId: string, c: NoteContent & { sourceCount: number }, version = 1): KnownNote => ({
  noteId,
  version,
  status: 'active',
  content: c,
});
const create = (c: NoteContent): Proposal => ({ op: 'create', content: c, finding: 'factual_conflict', reason: 'r' });
const ids = () => {
  let n = 0;
  return () => `N-new-${++n}`;
};

describe('reconcile', () => {
  it('a rewording reinforces: one note, one more source, more confidence, evidence joined', () => {
    const old = known('N1', content('Amounts from the billing API are in cents; divide by 100.'));
    const fresh = content('The billing API returns cents. Divide every amount by 100.', {
      evidence: [ref(2)],
      lastConfirmedAt: '2026-11-03T08:00:00.000Z',
    });
    const [op, ...rest] = reconcile([create(fresh)], [old], ids());
    expect(rest).toEqual([]);
    expect(op).toMatchObject({ op: 'reinforce', noteId: 'N1', expectedVersion: 1 });
    expect(op?.content).toMatchObject({ sourceCount: 2, lastConfirmedAt: '2026-11-03T08:00:00.000Z' });
    expect(op?.content.confidence).toBeGreaterThan(0.9);
    expect(op?.content.evidence.map((e) => e.recordId)).toEqual([ref(1).recordId, ref(2).recordId]);
  });

  it('a new value of an exclusive slot supersedes the old one, with the pointer', () => {
    const home = (value: string) => slot(value, { attribute: 'lives in', exclusive: true });
    const old = known(
      'N1',
      content('u-dan lives in Boston', { sourceKind: 'user_statement', structure: home('Boston') }),
    );
    const fresh = content('u-dan lives in Seattle', {
      sourceKind: 'user_statement',
      structure: home('Seattle'),
      evidence: [ref(2)],
      lastConfirmedAt: '2026-11-04T08:00:00.000Z',
    });
    const ops = reconcile([create(fresh)], [{ ...old, content: { ...old.content, sourceCount: 4 } }], ids());
    expect(ops.map((o) => [o.op, o.noteId, o.supersededBy])).toEqual([
      ['create', 'N-new-1', undefined],
      ['supersede', 'N1', 'N-new-1'],
    ]);
  });

  it("a user's claim does not override a tool's authoritative fact: the claim is superseded", () => {
    const rule = (polarity: 'positive' | 'negative') =>
      slot('a manager approval id', {
        subject: { type: 'tool', id: 'refunds.create' },
        attribute: 'requires',
        polarity,
      });
    const tool = known(
      'N-tool',
      content('refunds.create requires a manager approval id', {
        sourceKind: 'tool_fact',
        structure: rule('positive'),
      }),
    );
    const user = content('refunds.create does not require a manager approval id', {
      structure: rule('negative'),
      evidence: [ref(2)],
      lastConfirmedAt: '2026-11-04T08:00:00.000Z',
    });
    const ops = reconcile([create(user)], [tool], ids());
    expect(ops.map((o) => [o.op, o.noteId, o.supersededBy])).toEqual([
      ['create', 'N-new-1', undefined],
      ['supersede', 'N-new-1', 'N-tool'],
    ]);
  });

  it('values of a slot that accumulates both stay', () => {
    const went = (value: string) => slot(value, { subject: { type: 'entity', id: 'Caroline' }, attribute: 'went to' });
    const old = known(
      'N1',
      content('Caroline went to Paris', { sourceKind: 'user_statement', structure: went('Paris') }),
    );
    const fresh = content('Caroline went to Rome', { sourceKind: 'user_statement', structure: went('Rome') });
    expect(reconcile([create({ ...fresh, evidence: [ref(2)] })], [old], ids()).map((o) => o.op)).toEqual(['create']);
  });

  it('a plan is created with its expiry', () => {
    const plan = content('u-dan has a dentist appointment on 5 May 2026', {
      structure: slot('a dentist appointment', { attribute: 'has', time: { at: '2026-05-05T16:00:00.000Z' } }),
      validFrom: '2026-05-01T10:00:00.000Z',
    });
    expect(reconcile([create(plan)], [], ids())[0]?.content.validUntil).toBe('2026-05-06T00:00:00.000Z');
  });

  it('the contradiction that takes a note below the threshold retires it; a later one in the batch is dropped', () => {
    const low = 0.9 * CONTRADICTION_FACTOR ** 2;
    const note = known('N1', content('The billing API returns amounts in cents.', { confidence: low }), 5);
    const revise = (n: number): Proposal => ({
      op: 'revise',
      noteId: 'N1',
      expectedVersion: 5,
      content: {
        ...note.content,
        confidence: low * CONTRADICTION_FACTOR,
        contradictedAt: '2026-11-04T00:00:00.000Z',
        evidence: [...note.content.evidence, ref(n)],
      },
      finding: 'outdated_constraint',
      reason: 'recalled notes preceded a failure',
    });
    const ops = reconcile([revise(2), revise(3)], [note], ids());
    expect(ops.map((o) => [o.op, o.noteId, o.expectedVersion])).toEqual([['retire', 'N1', 5]]);
  });

  it('a correction that says what the recalled note says is no contradiction of it', () => {
    const note = known('N1', content('Amounts from the refunds API are already in dollars; do not divide them.'));
    const correction = create(content('The refunds API returns dollars already.', { evidence: [ref(2), ref(3)] }));
    const contradiction: Proposal = {
      op: 'revise',
      noteId: 'N1',
      expectedVersion: 1,
      content: {
        ...note.content,
        confidence: 0.54,
        contradictedAt: '2026-11-04T00:00:00.000Z',
        evidence: [ref(1), ref(3), ref(4)],
      },
      finding: 'outdated_constraint',
      reason: 'recalled notes preceded a correction',
    };
    const ops = reconcile([contradiction, correction], [note], ids());
    expect(ops.map((o) => [o.op, o.noteId, o.content.confidence > 0.9])).toEqual([['reinforce', 'N1', true]]);
  });

  it('on a later run, when the note already cites that correction, its episode still speaks for the note', () => {
    // Records 2 and 3 (the agent's answer and the correction) reinforced the note last night; record 4 is the episode's memory_used record.
    const note = known(
      'N1',
      content('Amounts from the refunds API are already in dollars; do not divide them.', {
        evidence: [ref(1), ref(2), ref(3)],
      }),
      2,
    );
    const correction = create(content('The refunds API returns dollars already.', { evidence: [ref(2), ref(3)] }));
    const contradiction: Proposal = {
      op: 'revise',
      noteId: 'N1',
      expectedVersion: 2,
      content: {
        ...note.content,
        confidence: 0.54,
        contradictedAt: '2026-11-05T00:00:00.000Z',
        evidence: [ref(1), ref(2), ref(3), ref(4)],
      },
      finding: 'outdated_constraint',
      reason: 'recalled notes preceded a correction',
    };
    const episodeOf = (recordId: string) =>
      [ref(2), ref(3), ref(4)].some((r) => r.recordId === recordId) ? 'E' : undefined;
    expect(reconcile([contradiction, correction], [note], ids(), { episodeOf })).toEqual([]);
    expect(reconcile([contradiction, correction], [note], ids()).map((o) => o.op)).toEqual(['revise']);
  });

  it('a correction about another thing does not count against a note recalled before it', () => {
    const note = known('N1', content('Amounts from the billing API are in cents; divide by 100.'));
    const refunds = create(
      content('Amounts from the refunds API are already in dollars; do not divide them.', {
        evidence: [ref(2), ref(3)],
      }),
    );
    const contradiction: Proposal = {
      op: 'revise',
      noteId: 'N1',
      expectedVersion: 1,
      content: {
        ...note.content,
        confidence: 0.54,
        contradictedAt: '2026-11-04T00:00:00.000Z',
        evidence: [ref(1), ref(3), ref(4)],
      },
      finding: 'outdated_constraint',
      reason: 'recalled notes preceded a correction',
    };
    const said = new Map([
      [ref(2).recordId, 'You refunded $3,115.00 in March.'],
      [ref(3).recordId, 'No, amounts from the refunds API are already in dollars; do not divide them.'],
    ]);
    const text = (p: Proposal) => p.content.evidence.map((e) => said.get(e.recordId) ?? '').join(' ');
    expect(
      reconcile([contradiction, refunds], [note], ids(), { evidenceText: text }).map((o) => [o.op, o.noteId]),
    ).toEqual([['create', 'N-new-1']]);
    // Without the lesson's records to read, the shared words make it a contradiction, as before.
    expect(reconcile([contradiction], [note], ids()).map((o) => o.op)).toEqual(['revise']);
  });

  it('a success after recall reinforces once: the same evidence again changes nothing', () => {
    const note = known('N1', content('crm.export times out with pageSize 1000'));
    const success: Proposal = {
      op: 'reinforce',
      noteId: 'N1',
      expectedVersion: 1,
      content: { ...note.content, evidence: [ref(7)], lastConfirmedAt: '2026-11-04T00:00:00.000Z' },
      finding: 'recall_success',
      reason: 'recalled before a task that succeeded',
    };
    const [op] = reconcile([success], [note], ids());
    expect(op).toMatchObject({ op: 'reinforce', noteId: 'N1', expectedVersion: 1, content: { sourceCount: 2 } });
    const after = known('N1', op!.content as NoteContent & { sourceCount: number }, 2);
    expect(reconcile([{ ...success, expectedVersion: 2 }], [after], ids())).toEqual([]);
  });
});
