import { describe, expect, it } from 'vitest';
import { HIGH_IMPORTANCE, isPriorityRecord, priorityReasons } from '../../../policies/priority.ts';
import type { PriorityInput, PriorityReason } from '../../../policies/priority.ts';

const cases: Array<[string, PriorityInput, PriorityReason[]]> = [
  ['plain user message', { kind: 'user_message' }, []],
  ['user_correction kind', { kind: 'user_correction' }, ['user_correction']],
  ['user_correction tag on a message', { kind: 'user_message', tags: ['user_correction'] }, ['user_correction']],
  ['error kind', { kind: 'error' }, ['failure']],
  ['failure tag', { kind: 'task_outcome', tags: ['failure'] }, ['failure']],
  ['failed outcome on a tool result', { kind: 'tool_result', outcome: { status: 'failure' } }, ['failure']],
  ['successful outcome', { kind: 'tool_result', outcome: { status: 'success' } }, []],
  ['pending outcome', { kind: 'task_outcome', outcome: { status: 'pending' } }, []],
  ['high_value tag', { kind: 'approval', tags: ['high_value'] }, ['high_value']],
  ['importance at threshold', { kind: 'agent_message', importance: HIGH_IMPORTANCE }, ['high_value']],
  ['importance just below', { kind: 'agent_message', importance: HIGH_IMPORTANCE - 0.01 }, []],
  ['negative feedback', { kind: 'feedback', outcome: { status: 'success', reward: -1 } }, ['negative_feedback']],
  ['positive feedback', { kind: 'feedback', outcome: { status: 'success', reward: 1 } }, []],
  ['negative reward outside feedback', { kind: 'tool_result', outcome: { status: 'success', reward: -1 } }, []],
  ['memory_used alone is not priority', { kind: 'memory_used', tags: ['recall'] }, []],
  [
    'several reasons, in canonical order',
    { kind: 'user_correction', tags: ['high_value', 'failure'], outcome: { status: 'failure' } },
    ['user_correction', 'failure', 'high_value'],
  ],
];

describe('priorityReasons', () => {
  it.each(cases)('%s', (_name, record, expected) => {
    expect(priorityReasons(record)).toEqual(expected);
    expect(isPriorityRecord(record)).toBe(expected.length > 0);
  });
});
