import { describe, expect, it } from 'vitest';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import type { Proposal } from '../../../src/contracts/episode.ts';
import type { SourceKind } from '../../../src/contracts/note.ts';
import type { NoteStructure } from '../../../src/contracts/note-structure.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { archived } from '../../helpers/episodes.ts';

/**
 * Validation by meaning: inversions of the evidence must fail however many words they share with
 * it, and faithful abstractions must pass however they are worded. Each row is one proposal
 * against the records it cites; `structure` rows exercise the field-by-field checks.
 */

let seq = 0;
const nextId = () => `01JE${String(++seq).padStart(22, '0')}`;

type Said = Partial<RawRecordInput> & { text?: string };
const record = (r: Said): RawRecordInput => ({
  id: nextId(),
  tenantId: 'acme',
  agentId: 'travel-agent',
  sessionId: 's1',
  kind: 'user_message',
  source: 'user',
  observedAt: '2023-05-08T13:50:00Z',
  ...r,
});
const user = (userId: string, text: string, observedAt?: string) =>
  record({ userId, text, ...(observedAt ? { observedAt } : {}) });
const toolError = (tool: string, text: string, args: Record<string, unknown> = {}) =>
  record({ userId: 'u-alice', kind: 'error', source: 'tool', text, payload: { tool, args } });
const toolCall = (tool: string, args: Record<string, unknown>) =>
  record({ userId: 'u-alice', kind: 'tool_call', source: 'agent', payload: { tool, args } });

const aisle = () => user('u-dan', 'I asked for an aisle seat, not a window seat.');
const cents = () => user('u-alice', 'That is wrong: the billing API returns amounts in cents.');
const caroline = (observedAt = '2023-05-08T13:51:00Z') =>
  user('Caroline', 'I went to a LGBTQ support group yesterday and it was so powerful.', observedAt);
const refundError = () =>
  toolError('refunds.create', 'refunds over $100 need a manager approval id', { order: '1182', amount: 250 });
const timeout = () => toolError('crm.export', 'upstream timeout after 30s (pageSize=1000)', { pageSize: 1000 });
const retry = () => toolCall('crm.export', { pageSize: 200 });
const coffee = () => user('Melanie', 'I drink coffee every morning, never tea.');
const birthday = () => user('Melanie', "My daughter's birthday is next Tuesday!", '2023-05-08T09:00:00Z');
const budget = () => user('u-dan', 'My budget for the hotel is $100 a night.');
const sunrise = () => user('Melanie', 'My kids and I painted a sunrise by the lake last weekend.');
const v2 = () => user('u-bob', 'Billing API v2 amounts are not in cents any more, they are in dollars.');
const horror = (text: string) => user('Caroline', text);
const verifyCall = () => ({ ...toolCall('verify', { order: '1182' }), taskType: 'refund' });
const correction = (value: string): NoteStructure => ({
  ...userStructure('u-bob', 'corrected the assistant', value),
  template: 'correction',
});
const dislikes: NoteStructure = {
  subject: { type: 'user', id: 'Caroline' },
  attribute: 'does like',
  value: 'horror films',
  polarity: 'negative',
};

interface Row {
  name: string;
  records: () => RawRecordInput[];
  claim: string;
  structure?: NoteStructure;
  sourceKind?: SourceKind;
  /** `accept`, or the rule the proposal must be rejected by. */
  expected: string;
}

const userStructure = (id: string, attribute: string, value: string, extra: Partial<NoteStructure> = {}) => ({
  subject: { type: 'user' as const, id },
  attribute,
  value,
  ...extra,
});
const refundsStructure = (value: string, amount = 100): NoteStructure => ({
  subject: { type: 'tool', id: 'refunds.create' },
  attribute: 'requires',
  value,
  conditions: [{ field: 'arg.amount', op: 'gt', value: amount }],
});
const carolineStructure = (at: string): NoteStructure => ({
  subject: { type: 'entity', id: 'Caroline' },
  attribute: 'went to',
  value: 'an LGBTQ support group',
  time: { at, source: 'yesterday' },
});

const shoots = () => user('Caroline', 'I had to reject the weekend shoots on April 6 and 7.', '2024-03-30T10:00:00Z');
const necklace = () => user('Maria', 'I bought a cross necklace.', '2023-04-10T10:00:00Z');
const bought = (by: string) => userStructure('Maria', 'bought', 'a cross necklace', { time: { by } });
const rejected = (at: string) => userStructure('Caroline', 'had to reject', 'the weekend shoots', { time: { at } });

const inversions: Row[] = [
  {
    name: 'a negation added to a fact',
    records: () => [user('u-alice', 'The billing API returns amounts in cents')],
    claim: 'The billing API does not return amounts in cents',
    expected: 'polarity_mismatch',
  },
  {
    name: 'the two sides of a contrast swapped',
    records: () => [aisle()],
    claim: 'The user wants a window seat, not an aisle seat',
    expected: 'polarity_mismatch',
  },
  {
    name: 'the preferred option denied',
    records: () => [aisle()],
    claim: 'u-dan does not want aisle seats',
    expected: 'polarity_mismatch',
  },
  {
    name: 'a contraction denying what was asserted',
    records: () => [cents()],
    claim: "The billing API doesn't return amounts in cents.",
    expected: 'polarity_mismatch',
  },
  {
    name: "a tool's demand turned into its absence",
    records: () => [refundError()],
    claim: 'Refunds over $100 do not need a manager approval id.',
    expected: 'polarity_mismatch',
  },
  {
    name: 'a preference turned around with "over"',
    records: () => [coffee()],
    claim: 'Melanie prefers tea over coffee.',
    expected: 'polarity_mismatch',
  },
  {
    name: 'a contrast turned around with "instead of"',
    records: () => [user('u-alice', 'Please always show me reports as a table, not prose.')],
    claim: 'Show u-alice reports as prose instead of a table.',
    expected: 'polarity_mismatch',
  },
  {
    name: 'a failure said never to happen',
    records: () => [timeout()],
    claim: 'crm.export never times out with pageSize 1000.',
    expected: 'polarity_mismatch',
  },
  {
    name: 'a day the record does not speak of',
    records: () => [caroline()],
    claim: 'Caroline went to an LGBTQ support group on 9 May 2023',
    expected: 'time_mismatch',
  },
  {
    name: 'structured: the day after the one "yesterday" means',
    records: () => [caroline()],
    claim: 'Caroline went to an LGBTQ support group on 9 May 2023',
    structure: carolineStructure('2023-05-09T00:00:00Z'),
    expected: 'time_mismatch',
  },
  {
    name: 'structured: "next Tuesday" read as the Tuesday after',
    records: () => [birthday()],
    claim: "Melanie's daughter's birthday is on 16 May 2023",
    structure: userStructure('Melanie', 'has', "her daughter's birthday", { time: { at: '2023-05-16T00:00:00Z' } }),
    expected: 'time_mismatch',
  },
  {
    name: 'structured: an invented value',
    records: () => [refundError()],
    claim: 'refunds.create over $100 requires a director approval id',
    structure: refundsStructure('a director approval id'),
    sourceKind: 'tool_fact',
    expected: 'value_unsupported',
  },
  {
    name: 'structured: an invented threshold',
    records: () => [refundError()],
    claim: 'refunds.create over $500 requires a manager approval id',
    structure: refundsStructure('a manager approval id', 500),
    sourceKind: 'tool_fact',
    expected: 'value_unsupported',
  },
  {
    name: 'structured: an amount the user never gave',
    records: () => [budget()],
    claim: 'u-dan has a hotel budget of $150 a night',
    structure: userStructure('u-dan', 'has a hotel budget of', '$150 a night'),
    expected: 'value_unsupported',
  },
  {
    name: 'structured: a user who neither speaks nor is named',
    records: () => [aisle()],
    claim: 'u-erin prefers aisle seats over window seats',
    structure: userStructure('u-erin', 'prefers', 'aisle seats', { contrast: 'window seats' }),
    expected: 'subject_mismatch',
  },
  {
    name: 'structured: a tool the records do not involve',
    records: () => [refundError()],
    claim: 'payments.refund over $100 requires a manager approval id',
    structure: { ...refundsStructure('a manager approval id'), subject: { type: 'tool', id: 'payments.refund' } },
    sourceKind: 'tool_fact',
    expected: 'subject_mismatch',
  },
  {
    name: "structured: the user id of a tool's output is not its speaker",
    records: () => [refundError()],
    claim: 'u-alice requires a manager approval id',
    structure: userStructure('u-alice', 'requires', 'a manager approval id'),
    expected: 'subject_mismatch',
  },
  {
    name: 'structured: the dispreferred option as the value',
    records: () => [aisle()],
    claim: 'u-dan prefers window seats over aisle seats',
    structure: userStructure('u-dan', 'prefers', 'window seats', { contrast: 'aisle seats' }),
    expected: 'polarity_mismatch',
  },
  {
    name: 'structured: a negative note on what the user asked for',
    records: () => [aisle()],
    claim: 'u-dan does not want aisle seats',
    structure: userStructure('u-dan', 'wants', 'aisle seats', { polarity: 'negative' }),
    expected: 'polarity_mismatch',
  },
  {
    name: 'structured: a claim that denies its positive structure',
    records: () => [aisle()],
    claim: 'u-dan does not prefer aisle seats',
    structure: userStructure('u-dan', 'prefers', 'aisle seats', { contrast: 'window seats' }),
    expected: 'claim_structure_mismatch',
  },
  {
    name: 'structured: a claim that swaps value and contrast',
    records: () => [aisle()],
    claim: 'u-dan prefers window seats over aisle seats',
    structure: userStructure('u-dan', 'prefers', 'aisle seats', { contrast: 'window seats' }),
    expected: 'claim_structure_mismatch',
  },
  {
    name: 'structured: a claim that does not name its subject',
    records: () => [aisle()],
    claim: 'The traveller prefers aisle seats over window seats',
    structure: userStructure('u-dan', 'prefers', 'aisle seats', { contrast: 'window seats' }),
    expected: 'claim_structure_mismatch',
  },
  {
    name: 'structured: a claim with another value than its structure',
    records: () => [aisle()],
    claim: 'u-dan prefers exit row seats',
    structure: userStructure('u-dan', 'prefers', 'aisle seats', { contrast: 'window seats' }),
    expected: 'claim_structure_mismatch',
  },
  {
    name: 'structured: a correction with its negation dropped',
    records: () => [v2()],
    claim: 'u-bob corrected the assistant: billing API v2 amounts are in cents.',
    structure: correction('billing API v2 amounts are in cents'),
    expected: 'polarity_mismatch',
  },
  {
    name: 'structured: a dislike of what the speaker likes',
    records: () => [horror('I like horror films, the scarier the better.')],
    claim: 'Caroline does not like horror films.',
    structure: dislikes,
    expected: 'polarity_mismatch',
  },
  {
    name: 'structured: a run lesson about a tool no cited record calls',
    records: () => [verifyCall()],
    claim: 'In refund tasks, successful runs call lookup; a failed run skipped it.',
    structure: {
      subject: { type: 'tool', id: 'lookup' },
      attribute: 'is called by successful runs',
      value: 'lookup',
      conditions: [{ field: 'task_type', op: 'eq', value: 'refund' }],
    },
    sourceKind: 'inference',
    expected: 'subject_mismatch',
  },
  {
    name: "structured: a second day of another month beside the note's day",
    records: () => [
      user('Caroline', 'I had to reject the weekend shoots on April 6 and May 7.', '2024-03-30T10:00:00Z'),
    ],
    claim: 'Caroline had to reject the weekend shoots on 6 April 2024 and 7 May 2024.',
    structure: rejected('2024-04-06T00:00:00Z'),
    expected: 'claim_structure_mismatch',
  },
  {
    name: 'structured: a second day the cited record never names',
    records: () => [shoots()],
    claim: 'Caroline had to reject the weekend shoots on 6 April 2024 and 8 April 2024.',
    structure: rejected('2024-04-06T00:00:00Z'),
    expected: 'time_mismatch',
  },
  {
    name: 'structured: an event bounded by a day before the one it was told',
    records: () => [necklace()],
    claim: 'On or before 9 April 2023, Maria bought a cross necklace.',
    structure: bought('2023-04-09T00:00:00Z'),
    expected: 'time_mismatch',
  },
  {
    name: 'structured: a bound in the fields that no cited record speaks of, whatever the claim says',
    records: () => [necklace()],
    claim: 'On or before 10 April 2023, Maria bought a cross necklace.',
    structure: bought('2023-04-09T00:00:00Z'),
    expected: 'time_mismatch',
  },
  {
    name: 'structured: "in 2021" for what happened three years before 2023',
    records: () => [user('Caroline', 'I started transitioning three years ago.')],
    claim: 'Caroline started transitioning in 2021.',
    structure: userStructure('Caroline', 'started', 'transitioning in 2021'),
    expected: 'time_mismatch',
  },
  {
    name: 'structured: a digest with a sentence the session never held',
    records: () => [sunrise(), caroline()],
    claim: 'In s1 on 8 May 2023, Melanie and Caroline talked: Melanie painted a portrait of the mayor with her kids.',
    structure: {
      subject: { type: 'entity', id: 's1' },
      attribute: 'summary',
      value: 'In s1 on 8 May 2023, Melanie and Caroline talked: Melanie painted a portrait of the mayor with her kids.',
      template: 'episode_summary',
    },
    expected: 'value_unsupported',
  },
];

const faithful: Row[] = [
  {
    name: 'structured: an event told with no time, bounded by the day it was told',
    records: () => [necklace()],
    claim: 'On or before 10 April 2023, Maria bought a cross necklace.',
    structure: bought('2023-04-10T00:00:00Z'),
    expected: 'accept',
  },
  {
    name: 'the fact as the user corrected it',
    records: () => [cents()],
    claim: 'The billing API returns amounts in cents.',
    expected: 'accept',
  },
  {
    name: 'a preference abstracted in the third person',
    records: () => [aisle()],
    claim: 'u-dan prefers aisle seats over window seats',
    expected: 'accept',
  },
  {
    name: 'the denied option kept denied',
    records: () => [aisle()],
    claim: 'u-dan does not want a window seat.',
    expected: 'accept',
  },
  {
    name: '"never" restated as "not"',
    records: () => [coffee()],
    claim: 'Melanie drinks coffee every morning, not tea.',
    expected: 'accept',
  },
  {
    name: 'a relative day written as the absolute one',
    records: () => [caroline()],
    claim: 'Caroline went to an LGBTQ support group on 7 May 2023',
    expected: 'accept',
  },
  {
    name: 'a compound written apart ("times out" for "timeout")',
    records: () => [timeout(), retry()],
    claim: 'crm.export times out with pageSize 1000; pageSize 200 works.',
    sourceKind: 'tool_fact',
    expected: 'accept',
  },
  {
    name: 'words outside the Latin alphabet',
    records: () => [user('u-müller', 'Ich bin Herr Müller und bevorzuge Überweisungen.')],
    claim: 'Herr Müller bevorzugt Überweisungen.',
    expected: 'accept',
  },
  {
    name: 'structured: a preference with its contrast',
    records: () => [aisle()],
    claim: 'u-dan prefers aisle seats over window seats',
    structure: userStructure('u-dan', 'prefers', 'aisle seats', { contrast: 'window seats' }),
    expected: 'accept',
  },
  {
    name: 'structured: the denied option as a negative note',
    records: () => [aisle()],
    claim: 'u-dan does not want window seats',
    structure: userStructure('u-dan', 'wants', 'window seats', { polarity: 'negative' }),
    expected: 'accept',
  },
  {
    name: 'structured: a verb that turns away from its value',
    records: () => [aisle()],
    claim: 'u-dan avoids window seats',
    structure: userStructure('u-dan', 'avoids', 'window seats'),
    expected: 'accept',
  },
  {
    name: 'structured: "yesterday" resolved against the day it was said',
    records: () => [caroline()],
    claim: 'Caroline went to an LGBTQ support group on 7 May 2023',
    structure: carolineStructure('2023-05-07T00:00:00Z'),
    expected: 'accept',
  },
  {
    name: 'structured: both days of a pair, the note\'s time the first ("April 6 and 7")',
    records: () => [shoots()],
    claim: 'Caroline had to reject the weekend shoots on 6 April 2024 and 7 April 2024.',
    structure: rejected('2024-04-06T00:00:00Z'),
    expected: 'accept',
  },
  {
    name: 'structured: "next Tuesday" resolved',
    records: () => [birthday()],
    claim: "Melanie's daughter's birthday is on 9 May 2023",
    structure: userStructure('Melanie', 'has', "her daughter's birthday", { time: { at: '2023-05-09T00:00:00Z' } }),
    expected: 'accept',
  },
  {
    name: 'structured: a tool demand with its threshold ("$100" as the number 100)',
    records: () => [refundError()],
    claim: 'refunds.create over $100 requires a manager approval id',
    structure: refundsStructure('a manager approval id'),
    sourceKind: 'tool_fact',
    expected: 'accept',
  },
  {
    name: 'structured: a failing argument and the one that works',
    records: () => [timeout(), retry()],
    claim: 'crm.export times out with pageSize 1000; pageSize 200 works',
    structure: {
      subject: { type: 'tool', id: 'crm.export' },
      attribute: 'times out with',
      value: 'pageSize 1000',
      contrast: 'pageSize 200',
    },
    sourceKind: 'tool_fact',
    expected: 'accept',
  },
  {
    name: 'structured: a unit spelled out ("30s" as "30 seconds")',
    records: () => [timeout()],
    claim: 'crm.export times out after 30 seconds',
    structure: { subject: { type: 'tool', id: 'crm.export' }, attribute: 'times out after', value: '30 seconds' },
    sourceKind: 'tool_fact',
    expected: 'accept',
  },
  {
    name: 'structured: an amount in words ("$100" as "100 dollars")',
    records: () => [budget()],
    claim: 'u-dan has a hotel budget of 100 dollars a night',
    structure: userStructure('u-dan', 'has a hotel budget of', '100 dollars a night'),
    expected: 'accept',
  },
  {
    name: 'structured: a speaker named in a tool record',
    records: () => [record({ kind: 'tool_result', source: 'tool', text: 'Booking for Caroline confirmed: seat 12C.' })],
    claim: 'Caroline has seat 12C',
    structure: { subject: { type: 'entity', id: 'Caroline' }, attribute: 'has', value: 'seat 12C' },
    sourceKind: 'tool_fact',
    expected: 'accept',
  },
  {
    name: 'structured: a statement in the third person, its weekend resolved',
    records: () => [sunrise()],
    claim: "Melanie painted a sunrise by the lake with Melanie's kids on the weekend of 6 May 2023.",
    structure: userStructure(
      'Melanie',
      'painted',
      "a sunrise by the lake with Melanie's kids on the weekend of 6 May 2023",
    ),
    expected: 'accept',
  },
  {
    name: 'structured: a correction whose value carries its own negation',
    records: () => [v2()],
    claim: 'u-bob corrected the assistant: billing API v2 amounts are not in cents.',
    structure: correction('billing API v2 amounts are not in cents'),
    expected: 'accept',
  },
  {
    name: 'structured: a negative statement',
    records: () => [horror("I don't like horror films at all.")],
    claim: 'Caroline does not like horror films.',
    structure: dislikes,
    expected: 'accept',
  },
  {
    name: 'structured: a lesson of several runs about the task type',
    records: () => [verifyCall()],
    claim: 'In refund tasks, successful runs call verify; a failed run skipped it.',
    structure: {
      subject: { type: 'entity', id: 'refund' },
      attribute: 'successful runs call',
      value: 'verify',
      conditions: [{ field: 'task_type', op: 'eq', value: 'refund' }],
    },
    sourceKind: 'inference',
    expected: 'accept',
  },
  {
    name: 'structured: "three years ago" written as the year',
    records: () => [user('Caroline', 'I started transitioning three years ago.')],
    claim: 'Caroline started transitioning in 2020.',
    structure: userStructure('Caroline', 'started', 'transitioning in 2020', { time: { at: '2020-01-01T00:00:00Z' } }),
    expected: 'accept',
  },
  {
    name: 'structured: "you" said to the agent written as "the assistant", a contraction spelled out',
    records: () => [user('customer-4', "Got it, I'll get back to you with the reservation ID later.")],
    claim: 'customer-4 will get back to the assistant with the reservation ID later.',
    structure: userStructure('customer-4', 'will', 'get back to the assistant with the reservation ID later'),
    expected: 'accept',
  },
  {
    name: 'structured: a negation that reaches only the first clause of the value',
    records: () => [user('Jon', "I won't quit - your words motivate me to keep going!")],
    claim: 'Jon will not quit - the words motivate Jon to keep going!',
    structure: userStructure('Jon', 'will', 'quit - the words motivate Jon to keep going!', { polarity: 'negative' }),
    expected: 'accept',
  },
  {
    name: 'structured: advice against a call the failed run made',
    records: () => [verifyCall()],
    claim: 'In refund tasks, a failed run called verify; successful runs did not.',
    structure: {
      subject: { type: 'agent', id: 'travel-agent' },
      attribute: 'should not call',
      value: 'verify',
      conditions: [{ field: 'task_type', op: 'eq', value: 'refund' }],
    },
    sourceKind: 'inference',
    expected: 'accept',
  },
  {
    name: 'structured: a digest of the session in the third person',
    records: () => [sunrise(), caroline()],
    claim:
      "In s1 on 8 May 2023, Melanie and Caroline talked: Melanie's kids and Melanie painted a sunrise by the lake on the weekend of 6 May 2023. Caroline went to a LGBTQ support group on 7 May 2023 and it was so powerful.",
    structure: {
      subject: { type: 'entity', id: 's1' },
      attribute: 'summary',
      value:
        "In s1 on 8 May 2023, Melanie and Caroline talked: Melanie's kids and Melanie painted a sunrise by the lake on the weekend of 6 May 2023. Caroline went to a LGBTQ support group on 7 May 2023 and it was so powerful.",
      time: { at: '2023-05-08T13:50:00Z' },
      template: 'episode_summary',
    },
    expected: 'accept',
  },
];

function proposal(row: Row, records: ReturnType<typeof archived>): Proposal {
  return {
    op: 'create',
    finding: 'stated_preference',
    reason: row.name,
    content: {
      scope: { level: 'session', key: 's1' },
      kind: 'fact',
      claim: row.claim,
      evidence: records.map((r) => r.ref),
      sourceKind: row.sourceKind ?? 'user_statement',
      confidence: 0.5,
      importance: 0.5,
      validFrom: '2023-05-08T14:00:00Z',
      lastConfirmedAt: '2023-05-08T14:00:00Z',
      ...(row.structure ? { structure: row.structure } : {}),
    },
  };
}

function verdictOf(row: Row) {
  const records = archived(row.records());
  const resolved = new Map<string, ResolvedRecord>(
    records.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
  return validateProposal(proposal(row, records), 'acme', resolved);
}

describe('validation by meaning', () => {
  it.each(inversions.map((r) => [r.name, r] as const))('rejects %s', (_name, row) => {
    expect(verdictOf(row)).toMatchObject({ verdict: 'reject', rule: row.expected });
  });

  it.each(faithful.map((r) => [r.name, r] as const))('accepts %s', (_name, row) => {
    expect(verdictOf(row)).toEqual({ verdict: 'accept' });
  });
});
