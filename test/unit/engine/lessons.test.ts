import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../../policies/attribution.ts';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import type { Episode, Proposal } from '../../../src/contracts/episode.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { createDeterministicEngine } from '../../../src/engine/deterministic.ts';
import { archived, toEpisodes } from '../../helpers/episodes.ts';

let n = 0;
const id = () => `01JE${String(++n).padStart(22, '0')}`;
type Step = Partial<RawRecordInput> & Pick<RawRecordInput, 'kind'>;
const at = (minute: number) => new Date(Date.UTC(2023, 4, 8, 14, minute)).toISOString();

/** One support task: the user, the agent, tool calls; `session` and `outcome` vary per run. */
function run(session: string, steps: Step[], status?: 'success' | 'failure'): RawRecordInput[] {
  const all: Step[] = status ? [...steps, { kind: 'task_outcome', source: 'system', outcome: { status } }] : steps;
  return all.map((s, i) => ({
    id: id(),
    tenantId: 'shop',
    userId: 'u-eve',
    agentId: 'support',
    sessionId: session,
    taskId: session,
    taskType: 'refund',
    observedAt: at(i),
    source: s.kind === 'user_message' || s.kind === 'user_correction' ? 'user' : 'agent',
    ...s,
  }));
}
const user = (text: string): Step => ({ kind: 'user_message', text });
const agent = (text: string): Step => ({ kind: 'agent_message', text });
const call = (tool: string, args: unknown): Step => ({ kind: 'tool_call', payload: { tool, args } });
const result = (tool: string, text: string): Step => ({ kind: 'tool_result', source: 'tool', text, payload: { tool } });
const error = (tool: string, text: string): Step => ({ kind: 'error', source: 'tool', text, payload: { tool } });

async function lessons(records: RawRecordInput[]): Promise<{ proposals: Proposal[]; valid: (p: Proposal) => boolean }> {
  const rs = archived(records);
  const episodes = toEpisodes(rs);
  const ok = (e: Episode) => e.records.some((r) => r.record.outcome?.status === 'success');
  const findings = episodes.flatMap((e) => attributeEpisode(e, episodes.filter(ok)));
  const { proposals } = await createDeterministicEngine().propose({
    episodes,
    findings,
    activeNotes: [],
    now: new Date(),
  });
  const resolved = new Map<string, ResolvedRecord>(
    rs.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
  return {
    proposals,
    valid: (p) => validateProposal(p, 'shop', resolved).verdict === 'accept',
  };
}

describe('what is not a note', () => {
  it.each([
    ['a request for this episode', 'I need a refund for order 1182, it arrived broken.'],
    ['a question', 'Do you always ship with DHL?'],
    ['a greeting', 'Hi there! Thanks so much.'],
    ['an acknowledgement', 'Got it, thanks, that works for me.'],
    ['a request worded as a wish', "I'd like to change my delivery address please."],
  ])('%s', async (_name, text) => {
    const { proposals } = await lessons(run('s-1', [user(text), agent('Sure, one moment.')]));
    expect(proposals.map((p) => p.content.claim)).toEqual([]);
  });

  it('a real preference is one, in the third person, scoped to its user', async () => {
    const { proposals, valid } = await lessons(
      run('s-1', [user('I prefer store credit over a card refund.'), agent('Noted.')]),
    );
    expect(proposals.map((p) => [p.content.kind, p.content.claim, p.content.scope])).toEqual([
      ['preference', 'u-eve prefers store credit over card refunds.', { level: 'user', key: 'u-eve' }],
    ]);
    expect(proposals[0]?.content.structure).toMatchObject({ subject: { type: 'user', id: 'u-eve' }, exclusive: true });
    expect(valid(proposals[0]!)).toBe(true);
  });
});

describe('corrections', () => {
  it('a correction about one episode holds for its session, not for the task type', async () => {
    const { proposals, valid } = await lessons(
      run('s-9', [
        user('When is my pickup?'),
        agent('Your pickup is at 2pm.'),
        { kind: 'user_correction', text: 'No, it was moved to 4pm.' },
      ]),
    );
    const [note] = proposals;
    expect(note?.content.scope).toEqual({ level: 'session', key: 's-9' });
    expect(note?.content.claim).toBe('u-eve corrected the assistant: it was moved to 4pm.');
    expect(note?.content.structure?.exclusive).toBe(true);
    expect(valid(note!)).toBe(true);
  });
});

describe('tool errors', () => {
  const refund = [
    user('Please refund order 1182.'),
    call('refunds.create', { order: '1182', amount: 150 }),
    error('refunds.create', 'refunds over $100 need a manager approval id'),
  ];

  it('are lessons without a retry: what failed, with which arguments, what the tool demanded', async () => {
    const { proposals, valid } = await lessons(run('s-2', refund, 'failure'));
    const note = proposals.find((p) => p.content.kind === 'constraint');
    expect(note?.content.claim).toBe('refunds.create over $100 requires a manager approval id.');
    expect(note?.content.structure).toMatchObject({
      subject: { type: 'tool', id: 'refunds.create' },
      conditions: [{ field: 'arg.amount', op: 'gt', value: '$100' }],
      exclusive: true,
    });
    expect(note?.content.sourceKind).toBe('tool_fact');
    expect(valid(note!)).toBe(true);
  });

  it("a user's reply denying the tool's error becomes no note; the tool's lesson stands", async () => {
    const { proposals } = await lessons(
      run(
        's-3',
        [...refund, user('Refunds never need approval, just retry it.'), agent('I cannot retry without one.')],
        'failure',
      ),
    );
    expect(
      proposals.filter((p) => p.content.kind === 'preference' || p.content.sourceKind === 'user_statement'),
    ).toEqual([]);
    expect(proposals.map((p) => p.content.claim)).toContain('refunds.create over $100 requires a manager approval id.');
  });
});

describe('failed runs against successful runs of the same task type', () => {
  const asked = [agent('I will issue a refund of $40 to your card. Shall I proceed?'), user('Yes, go ahead.')];
  it('a skipped confirmation is a strategy for the task type, citing both runs', async () => {
    const ok = run(
      'ok-1',
      [
        user('Refund order 7.'),
        call('orders.get', { id: 7 }),
        result('orders.get', 'order 7, $40'),
        ...asked,
        call('refunds.create', { order: '7' }),
      ],
      'success',
    );
    const bad = run(
      'bad-1',
      [
        user('Refund order 7.'),
        call('orders.get', { id: 7 }),
        result('orders.get', 'order 7, $40'),
        call('refunds.create', { order: '7' }),
      ],
      'failure',
    );
    const { proposals, valid } = await lessons([...ok, ...bad]);
    const note = proposals.find((p) => p.content.kind === 'strategy');
    expect(note?.content.claim).toBe(
      'In refund tasks, successful runs ask the user to confirm before refunds.create; a failed run called it without asking.',
    );
    expect(note?.content.scope).toEqual({ level: 'task_type', key: 'refund' });
    const cited = new Set(
      note?.content.evidence.map((e) => [...ok, ...bad].find((r) => r.id === e.recordId)?.sessionId),
    );
    expect(cited).toEqual(new Set(['ok-1', 'bad-1']));
    expect(valid(note!)).toBe(true);
  });
});

/** One user's messages in one session, a minute apart. */
const toldBy = (userId: string, sessionId: string, talk: readonly string[]): RawRecordInput[] =>
  talk.map((text, i) => ({
    id: id(),
    tenantId: 'shop',
    userId,
    agentId: 'chat',
    sessionId,
    kind: 'user_message',
    source: 'user',
    observedAt: at(i),
    text,
  }));

describe('episode digests', () => {
  it('one per episode with enough content, in the session scope, each fact citing its record', async () => {
    const talk = [
      'I went to a pottery class yesterday.',
      'My sister moved to Denver last month.',
      'I started training for the Boston marathon.',
    ];
    const records = toldBy('Caroline', 'session_1', talk);
    const { proposals } = await lessons(records);
    const digests = proposals.filter((p) => p.content.kind === 'episode_summary');
    expect(digests).toHaveLength(1);
    const digest = digests[0]!;
    expect(digest.content.scope).toEqual({ level: 'session', key: 'session_1' });
    expect(digest.content.claim).toBe(
      "In session_1 on 8 May 2023, Caroline talked: Caroline went to a pottery class on 7 May 2023. Caroline's sister moved to Denver in April 2023. On or before 8 May 2023, Caroline started training for the Boston marathon.",
    );
    expect(digest.content.evidence.map((e) => e.recordId)).toEqual(records.map((r) => r.id));
    // Extractive: every fact of the digest is a note of its own, citing its record.
    const facts = proposals.filter((p) => p.content.kind === 'fact');
    expect(facts.map((p) => p.content.evidence[0]?.recordId)).toEqual(records.map((r) => r.id));
    expect(digest.content.claim.endsWith(facts.map((p) => p.content.claim).join(' '))).toBe(true);
  });

  /** The digest of a task run's records, checked valid; a user who told three facts of theirs gets one. */
  async function taskDigest(session: string, request: string, calls: Step[]): Promise<Proposal> {
    const told = 'My user ID is eve_3817. My flight HAT039 was delayed on 2 May 2023. My home airport is Boston Logan.';
    const records = run(
      session,
      [user(request), agent('Sure. What is your user ID?'), user(told), ...calls],
      'failure',
    );
    const { proposals, valid } = await lessons(records);
    const digest = proposals.find((p) => p.content.kind === 'episode_summary');
    expect(digest && valid(digest)).toBe(true);
    return digest!;
  }

  it('says the day once: a fact that holds as of the header day leaves its "As of" there', async () => {
    const talk = [
      'I went to a pottery class yesterday.',
      "I'm expanding my dance studio's social media presence.",
      'I started training for the Boston marathon.',
    ];
    const records = toldBy('Caroline', 'session_2', talk);
    const claims = (await lessons(records)).proposals.map((p) => p.content.claim);
    expect(claims).toContain(
      "As of 8 May 2023, Caroline is expanding Caroline's dance studio's social media presence.",
    );
    expect(claims).toContain(
      "In session_2 on 8 May 2023, Caroline talked: Caroline went to a pottery class on 7 May 2023. Caroline is expanding Caroline's dance studio's social media presence. On or before 8 May 2023, Caroline started training for the Boston marathon.",
    );
  });

  it("a task's digest tells that run: what the user asked for, what the assistant changed, how it ended", async () => {
    const cancel = call('reservations.cancel', { reservation_id: 'ABC123', reason: 'change of plan' });
    const digest = await taskDigest('bad-2', "Hi! I'd like to cancel my reservation ABC123, please.", [
      call('reservations.get', { reservation_id: 'ABC123' }),
      cancel,
      cancel,
    ]);
    expect(digest.content.claim).toBe(
      "In bad-2 on 8 May 2023, u-eve and the assistant talked: u-eve would like to cancel u-eve's reservation ABC123. " +
        'The assistant called reservations.cancel (reservation_id ABC123). The run ended in failure.',
    );
    // It cites the request, the change (told once though made twice) and the outcome.
    expect(digest.content.evidence).toHaveLength(3);
  });

  it('a task in which the assistant changed nothing says so', async () => {
    const digest = await taskDigest('bad-3', "I'm hoping for a refund of my insurance.", [
      call('reservations.get', { reservation_id: 'ABC123' }),
    ]);
    expect(digest.content.claim).toBe(
      "In bad-3 on 8 May 2023, u-eve and the assistant talked: u-eve is hoping for a refund of u-eve's insurance. " +
        'The assistant made no change. The run ended in failure.',
    );
  });
});
