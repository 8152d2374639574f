import { describe, expect, it } from 'vitest';
import { renderClaim, TEMPLATE_VOCABULARY } from '../../../policies/note-templates.ts';
import type { NoteKind } from '../../../src/contracts/note.ts';
import type { NoteStructure } from '../../../src/contracts/note-structure.ts';

const user = (id: string) => ({ type: 'user' as const, id });
const tool = (id: string) => ({ type: 'tool' as const, id });

describe('renderClaim renders a claim from its structure, one template per shape of lesson', () => {
  it.each<[string, NoteKind, NoteStructure, string]>([
    [
      'a preference between options',
      'preference',
      {
        subject: user('u-dan'),
        attribute: 'prefers',
        value: 'aisle seats',
        contrast: 'window seats',
        template: 'preference',
      },
      'u-dan prefers aisle seats over window seats.',
    ],
    [
      'a negative preference',
      'preference',
      {
        subject: user('u-dan'),
        attribute: 'prefers',
        value: 'red-eye flights',
        polarity: 'negative',
        template: 'preference',
      },
      'u-dan does not want red-eye flights.',
    ],
    [
      'a standing instruction',
      'preference',
      {
        subject: user('u-alice'),
        attribute: 'wants',
        value: 'always show reports as a table',
        contrast: 'prose',
        template: 'directive',
      },
      'u-alice wants the assistant to always show reports as a table rather than prose.',
    ],
    [
      'a tool that times out, and what worked',
      'tool_behavior',
      {
        subject: tool('crm.export'),
        attribute: 'times out with',
        value: 'pageSize 1000',
        contrast: 'pageSize 200',
        template: 'tool_timeout',
      },
      'crm.export times out with pageSize 1000; pageSize 200 works.',
    ],
    [
      'a limit a tool enforces, from its conditions',
      'constraint',
      {
        subject: tool('refunds.create'),
        attribute: 'requires',
        value: 'a manager approval id',
        conditions: [{ field: 'arg.amount', op: 'gt', value: '$100' }],
        template: 'tool_requires',
      },
      'refunds.create over $100 requires a manager approval id.',
    ],
    [
      'a tool error without a retry',
      'tool_behavior',
      { subject: tool('flights.book'), attribute: 'fails with', value: 'seat 14A: seat taken', template: 'tool_error' },
      'flights.book fails with seat 14A: seat taken.',
    ],
    [
      'an event with its absolute date',
      'fact',
      {
        subject: user('Caroline'),
        attribute: 'went to',
        value: 'an LGBTQ support group on 7 May 2023',
        template: 'statement',
      },
      'Caroline went to an LGBTQ support group on 7 May 2023.',
    ],
    [
      'a negative statement puts "not" after its auxiliary',
      'fact',
      {
        subject: user('Melanie'),
        attribute: 'does like',
        value: 'horror films',
        polarity: 'negative',
        template: 'statement',
      },
      'Melanie does not like horror films.',
    ],
    [
      'a correction of one session',
      'fact',
      { subject: user('u-eve'), attribute: 'corrected', value: 'it was moved to 4pm', template: 'correction' },
      'u-eve corrected the assistant: it was moved to 4pm.',
    ],
    [
      'a tool the successful runs of a task call',
      'strategy',
      {
        subject: { type: 'agent', id: 'tau-bench' },
        attribute: 'calls',
        value: 'get_reservation_details',
        conditions: [{ field: 'task_type', op: 'eq', value: 'airline-task-6' }],
        template: 'contrast_omitted',
      },
      'In airline-task-6 tasks, successful runs call get_reservation_details; a failed run skipped it.',
    ],
    [
      'a failed run that called no tool, where the agent said it could not do what a tool does',
      'failure_cause',
      {
        subject: { type: 'entity', id: 'airline-task-16' },
        attribute: 'told the user it',
        value: 'provide real-time updates on flight statuses',
        polarity: 'negative',
        conditions: [{ field: 'task_type', op: 'eq', value: 'airline-task-16' }],
        template: 'no_tool_declined',
      },
      'In airline-task-16 tasks, a failed run called no tool; the agent told the user it can not provide real-time updates on flight statuses.',
    ],
    [
      'a failed run that called no tool, where the agent kept asking for an identifier',
      'failure_cause',
      {
        subject: { type: 'entity', id: 'airline-task-4' },
        attribute: 'kept asking for',
        value: 'reservation ID',
        conditions: [{ field: 'task_type', op: 'eq', value: 'airline-task-4' }],
        template: 'no_tool_insisted',
      },
      'In airline-task-4 tasks, a failed run called no tool; the agent kept asking for the reservation ID the user did not have.',
    ],
    [
      'a kind default when no template is named',
      'preference',
      { subject: user('u-dan'), attribute: 'prefers', value: 'aisle seats' },
      'u-dan prefers aisle seats.',
    ],
  ])('%s', (_name, kind, structure, claim) => {
    expect(renderClaim(kind, structure)).toBe(claim);
  });

  it('the words a template adds are listed, so a check against the evidence can leave them out', () => {
    for (const word of [
      'prefers',
      'over',
      'times',
      'out',
      'works',
      'requires',
      'successful',
      'skipped',
      'told',
      'kept',
    ])
      expect(TEMPLATE_VOCABULARY.has(word), word).toBe(true);
    for (const word of ['aisle', 'pagesize', 'approval']) expect(TEMPLATE_VOCABULARY.has(word), word).toBe(false);
  });
});
