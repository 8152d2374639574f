import { describe, expect, it } from 'vitest';
import { renderClaim } from '../../../policies/note-templates.ts';
import type { Proposal } from '../../../src/contracts/episode.ts';
import type { NoteStructure } from '../../../src/contracts/note-structure.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { lessonsOf } from '../../helpers/agent-runs.ts';
import { archived } from '../../helpers/episodes.ts';

/**
 * A failed run that called no tool where a lookup would have served the user: the agent said it
 * could not look the data up, or kept asking for an identifier the user said they did not have.
 * The shapes are tau-bench airline runs (a customer asking for balances, or to change a booking
 * without its reservation ID).
 */

type Turn = { user: string } | { agent: string } | { call: string } | { outcome: 'success' | 'failure' };

const TASK = 'airline-task-8';

function trial(turns: Turn[], taskType: string | null = TASK) {
  return archived(
    turns.map((t, i): RawRecordInput => {
      const common = {
        id: `01JD00000000000000000000${String(i).padStart(2, '0')}`,
        tenantId: 'logs',
        agentId: 'tau-bench',
        userId: 'customer-8',
        sessionId: 'task-8-trial-0',
        taskId: 'task-8-trial-0',
        ...(taskType ? { taskType } : {}),
        observedAt: `2024-05-15T09:${String(i).padStart(2, '0')}:00Z`,
      };
      if ('user' in t) return { ...common, kind: 'user_message', source: 'user', text: t.user };
      if ('agent' in t) return { ...common, kind: 'agent_message', source: 'agent', role: 'assistant', text: t.agent };
      if ('call' in t) return { ...common, kind: 'tool_call', source: 'agent', payload: { tool: t.call, args: {} } };
      return {
        ...common,
        kind: 'task_outcome',
        source: 'system',
        outcome: { status: t.outcome, reward: t.outcome === 'success' ? 1 : 0 },
      };
    }),
  );
}

/** The no-tool lessons the engine proposes for a trial, those validation accepts, and a verdict for any proposal. */
async function lessons(records: ReturnType<typeof trial>) {
  const got = await lessonsOf(records);
  return {
    proposals: got.proposals.filter((p) => p.finding === 'no_tool_call'),
    verdict: got.verdict,
    notes: got.notes.filter((n) => /^In \S+ tasks, a failed run called no tool;/.test(n.claim)),
  };
}

const BALANCES = 'Hello! Could you please tell me the sum of my gift card balances and certificate balances?';
const DECLINED =
  "I'm unable to access or provide information about your gift card and certificate balances. Please check your user profile or account for this information.";
const ASK = "I can help with that. I'll need your user ID and the reservation ID of the booking you wish to modify.";
const NO_ID = 'I don’t have the reservation ID with me right now. Can we look into changing my recent reservation?';
const AGAIN = 'To modify your reservation, I need the reservation ID. Please check your email for it.';
const FAILED: Turn = { outcome: 'failure' };

describe('a failed run that called no tool', () => {
  const cases: Array<{ name: string; turns: Turn[]; notes: Array<{ claim: string; steps: number[] }> }> = [
    {
      name: 'the agent said it could not access the balances, then kept asking for a reservation ID the user lacked',
      turns: [
        { user: BALANCES },
        { agent: DECLINED },
        { user: 'Then please change my recent reservation to the cheapest business round trip.' },
        { agent: ASK },
        { user: NO_ID },
        { agent: AGAIN },
        { user: 'I will check that and get back to you. Thanks!' },
        FAILED,
      ],
      notes: [
        {
          claim:
            'In airline-task-8 tasks, a failed run called no tool; the agent told the user it was unable to access or provide information about their gift card and certificate balances.',
          steps: [1, 7],
        },
        {
          claim:
            'In airline-task-8 tasks, a failed run called no tool; the agent kept asking for the reservation ID the user did not have.',
          steps: [3, 4, 5, 7],
        },
      ],
    },
    {
      name: 'the agent kept asking for the user ID and the reservation ID, both of which the user lacked',
      turns: [
        { user: 'My flight was delayed; I want compensation.' },
        { agent: 'Could you please provide your user ID and reservation ID so I can check your eligibility?' },
        { user: "I don't have my user ID or reservation ID with me right now. Can you still help?" },
        { agent: 'I need the user ID and reservation ID to verify your eligibility for compensation.' },
        FAILED,
      ],
      notes: [
        {
          claim:
            'In airline-task-8 tasks, a failed run called no tool; the agent kept asking for the user ID and reservation ID the user did not have.',
          steps: [1, 2, 3, 4],
        },
      ],
    },
    {
      name: '"I can\'t provide" is what the agent said it could not do',
      turns: [
        { user: 'My flight HAT039 has been delayed. Can you tell me what is going on?' },
        { agent: "I can't provide real-time updates on flight statuses. Please check the airline's website." },
        FAILED,
      ],
      notes: [
        {
          claim:
            'In airline-task-8 tasks, a failed run called no tool; the agent told the user it can not provide real-time updates on flight statuses.',
          steps: [1, 2],
        },
      ],
    },
    {
      name: '"I don\'t have access to" names the data the agent did not look up',
      turns: [
        { user: 'My flight HAT039 has been delayed. Can you tell me what is going on?' },
        { agent: "I currently don't have access to real-time flight status updates. Please check the website." },
        FAILED,
      ],
      notes: [
        {
          claim:
            'In airline-task-8 tasks, a failed run called no tool; the agent told the user it can not access real-time flight status updates.',
          steps: [1, 2],
        },
      ],
    },
  ];

  it.each(cases)('$name', async ({ turns, notes }) => {
    const got = await lessons(trial(turns));
    expect(got.notes).toEqual(notes.map((n) => ({ kind: 'failure_cause', ...n })));
  });

  const nothing: Array<{ name: string; turns: Turn[]; taskType?: string }> = [
    {
      name: 'a run that called a tool (a contrast with successful runs explains it, if anything)',
      turns: [{ user: BALANCES }, { agent: DECLINED }, { call: 'get_user_details' }, { user: NO_ID }, FAILED],
    },
    {
      name: 'a successful run with no tool call',
      turns: [
        { user: BALANCES },
        { agent: DECLINED },
        { agent: ASK },
        { user: NO_ID },
        { agent: AGAIN },
        { outcome: 'success' },
      ],
    },
    {
      name: 'a failed run of small talk only',
      turns: [
        { user: 'Hi there!' },
        { agent: 'Hello! How can I help you today?' },
        { user: 'Just saying thanks for last time.' },
        { agent: "You're welcome! Have a great day." },
        FAILED,
      ],
    },
    {
      name: 'a refusal to act, not to look something up (the policy at work)',
      turns: [
        { user: 'Please change the dates of my basic economy ticket.' },
        { agent: "I'm unable to modify a basic economy ticket; it can only be cancelled." },
        FAILED,
      ],
    },
    {
      name: 'an identifier the user lacked that the agent did not ask for again',
      turns: [{ agent: ASK }, { user: NO_ID }, { agent: 'No problem. What are your name and date of birth?' }, FAILED],
    },
    {
      name: 'a run of no task type (no scope narrower than the agent to write the lesson for)',
      turns: [{ user: BALANCES }, { agent: DECLINED }, FAILED],
      taskType: 'none',
    },
  ];

  it.each(nothing)('no lesson from $name', async ({ turns, taskType }) => {
    const got = await lessons(trial(turns, taskType === 'none' ? null : TASK));
    expect(got.proposals).toEqual([]);
  });
});

describe('validation of a no-tool lesson', () => {
  const unable: Turn[] = [{ user: BALANCES }, { agent: DECLINED }, FAILED];
  const cannot: Turn[] = [
    { user: 'My flight HAT039 has been delayed. Can you tell me what is going on?' },
    { agent: "I can't provide real-time updates on flight statuses. Please check the airline's website." },
    FAILED,
  ];

  /** The engine's proposal with its structure changed and its claim rendered again from it. */
  function changed(p: Proposal, change: Partial<NoteStructure>): Proposal {
    const structure = { ...(p.content.structure as NoteStructure), ...change };
    return { ...p, content: { ...p.content, structure, claim: renderClaim(p.content.kind, structure) } };
  }

  const tampered: Array<{ name: string; turns: Turn[]; change: Partial<NoteStructure>; rule: RegExp }> = [
    {
      name: 'turned around: the agent did not say it was unable to access the balances',
      turns: unable,
      change: { polarity: 'negative' },
      rule: /^(polarity_mismatch|claim_structure_mismatch)$/,
    },
    {
      name: 'turned around: the agent said it could provide real-time updates',
      turns: cannot,
      change: { polarity: 'positive' },
      rule: /^(polarity_mismatch|claim_structure_mismatch)$/,
    },
    {
      name: 'with an invented value: data the agent never spoke of',
      turns: unable,
      change: { value: 'was unable to access their seat map and meal preferences' },
      rule: /^value_unsupported$/,
    },
    {
      name: 'with an identifier nobody asked for',
      turns: [{ agent: ASK }, { user: NO_ID }, { agent: AGAIN }, FAILED],
      change: { value: 'frequent flyer number' },
      rule: /^value_unsupported$/,
    },
  ];

  it.each(tampered)('rejects the lesson $name, and accepts it as written', async ({ turns, change, rule }) => {
    const got = await lessons(trial(turns));
    const [original] = got.proposals;
    expect(got.proposals).toHaveLength(1);
    expect(got.verdict(original as Proposal)).toEqual({ verdict: 'accept' });
    const verdict = got.verdict(changed(original as Proposal, change));
    expect(verdict.verdict).toBe('reject');
    expect('rule' in verdict ? verdict.rule : '').toMatch(rule);
  });
});
