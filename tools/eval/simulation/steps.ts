import type { RawRecordInput, RecordKind } from '../../../src/contracts/raw-record.ts';

/** The record shapes an episode is made of, and the money formatting its messages share. */

export type Step = Pick<
  RawRecordInput,
  'kind' | 'text' | 'source' | 'role' | 'payload' | 'tags' | 'outcome' | 'importance'
> & { kind: RecordKind };

/** A note version the agent recalled for the task, as `memory_used` lists it. */
export interface UsedNote {
  noteId: string;
  version: number;
  rank: number;
  score: number;
}

export const user = (text: string): Step => ({ kind: 'user_message', text, source: 'user', role: 'user' });
export const agent = (text: string): Step => ({ kind: 'agent_message', text, source: 'agent', role: 'assistant' });
export const call = (tool: string, args: Record<string, unknown>): Step => ({
  kind: 'tool_call',
  source: 'agent',
  payload: { tool, args },
});
export const result = (tool: string, body: unknown): Step => ({
  kind: 'tool_result',
  source: 'tool',
  payload: { tool, result: body },
});
export const toolError = (tool: string, message: string): Step => ({
  kind: 'error',
  source: 'tool',
  text: message,
  payload: { tool },
  tags: ['failure'],
});
export const correction = (text: string): Step => ({
  kind: 'user_correction',
  text,
  source: 'user',
  role: 'user',
  tags: ['user_correction'],
  importance: 0.9,
});
export const outcome = (status: 'success' | 'failure', expected?: string, actual?: string): Step => ({
  kind: 'task_outcome',
  source: 'system',
  outcome: {
    status,
    ...(expected ? { expected } : {}),
    ...(actual ? { actual } : {}),
    reward: status === 'success' ? 1 : 0,
  },
  ...(status === 'failure' ? { tags: ['failure'] } : {}),
});
export const memoryUsed = (notes: UsedNote[]): Step => ({
  kind: 'memory_used',
  source: 'system',
  payload: { noteIds: notes.map((n) => n.noteId), notes },
  tags: ['recall'],
});

export function pickText(options: readonly string[], index: number): string {
  return options[index % options.length] as string;
}

/** 175000 cents → `$1,750.00`. */
export function dollars(cents: number): string {
  const whole = Math.floor(cents / 100);
  return `$${grouped(whole)}.${String(cents % 100).padStart(2, '0')}`;
}

export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
