import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawRecordInput, type RawRecord } from '../../src/contracts/raw-record.ts';
import { DatasetFormatError, defaultDatasetPath, loadDataset } from '../../tools/eval/datasets/index.ts';
import { PLACEHOLDER_TENANT, type EvalCase, type EvalDataset } from '../../tools/eval/types.ts';
import { toEpisode } from '../../src/episodes/episodes.ts';
import { attributeEpisode } from '../../policies/attribution.ts';

// Tiny hand-written fixtures in each dataset's real format. Strings in CAPITALS are grader data
// or annotations that must never reach a record.

let root: string;

const write = async (relative: string, value: unknown) => {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};

async function load(dataset: EvalDataset, relative: string): Promise<{ cases: EvalCase[]; issues: string[] }> {
  const issues: string[] = [];
  const cases = await loadDataset(dataset, path.join(root, relative), { onIssue: (m) => issues.push(m) });
  return { cases, issues };
}

/** What every loader promises: valid records, in strict time order, ids that sort with time, no leaked markers. */
function expectWellFormed(cases: EvalCase[], forbidden: string[] = []) {
  for (const c of cases) {
    c.records.forEach((r, i) => {
      expect(RawRecordInput.safeParse(r.record).success, `${c.caseId} ${r.goldId}`).toBe(true);
      expect(r.record.tenantId).toBe(PLACEHOLDER_TENANT);
      expect(r.record.recordedAt).toBe(r.record.observedAt);
      const previous = c.records[i - 1];
      if (previous) {
        expect(previous.record.observedAt < r.record.observedAt).toBe(true);
        expect(previous.record.id < r.record.id).toBe(true);
      }
    });
    expect(new Set(c.records.map((r) => r.goldId)).size).toBe(c.records.length);
  }
  const everything = JSON.stringify(cases.map((c) => c.records));
  for (const marker of forbidden) expect(everything).not.toContain(marker);
}

const episodeOf = (c: EvalCase, sessionId: string) =>
  toEpisode(
    sessionId,
    c.records
      .filter((r) => r.record.sessionId === sessionId)
      .map((r, i) => ({
        record: r.record as RawRecord,
        ref: { recordId: r.record.id, objectKey: 'fixture', line: i + 1, contentHash: '0'.repeat(64) },
      })),
  );

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'nocturne-eval-datasets-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('locomo', () => {
  const conversation = {
    sample_id: 'conv-1',
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Bob',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Bob!' },
        { speaker: 'Bob', dia_id: 'D1:2', text: 'Hey Ann, I adopted a dog.' },
        {
          speaker: 'Bob',
          img_url: ['https://example.invalid/x.jpg'],
          blip_caption: 'a photo of a dog',
          query: 'IMAGE-QUERY-MARKER',
          dia_id: 'D1:3',
          text: 'Look at him!',
        },
      ],
      session_2_date_time: '12:05 am on 10 May, 2023',
      session_2: [
        { speaker: 'Ann', dia_id: 'D2:1', text: 'How is the dog?' },
        { speaker: 'Bob', dia_id: 'D2:2', text: 'He loves the park.' },
      ],
      // Real files date sessions that have no turns.
      session_3_date_time: '9:00 am on 1 June, 2023',
    },
    qa: [
      { question: 'When did Bob adopt a dog?', answer: 'ANSWER-MARKER', evidence: ['D1:2'], category: 2 },
      { question: 'What does the dog like?', answer: 'the park', evidence: ['D1:3; D2:2'], category: 1 },
      { question: 'What is Ann?', answer: 'a friend', evidence: ['D', 'D2:1', 'D9:9'], category: 4 },
      { question: 'What did Ann adopt?', adversarial_answer: 'ADVERSARIAL-MARKER', evidence: ['D:1:2'], category: 5 },
      { question: 'Would Bob like a cat?', answer: 'maybe', evidence: [], category: 3 },
    ],
    event_summary: { events_session_1: ['EVENT-MARKER'] },
    observation: { session_1_observation: ['OBSERVATION-MARKER'] },
    session_summary: { session_1_summary: 'SUMMARY-MARKER' },
  };

  beforeAll(async () => {
    await write('locomo/README.md', 'not data');
    await write('locomo/locomo10.public.json', [conversation]);
    await write('locomo-bad/list.json', { conversations: [] });
    await write('locomo-bad-date/x.json', [
      { ...conversation, conversation: { ...conversation.conversation, session_2_date_time: 'yesterday' } },
    ]);
  });

  it('maps each turn to a user message of its speaker, in session order, one minute apart', async () => {
    const { cases } = await load('locomo', 'locomo');
    expect(cases.map((c) => c.caseId)).toEqual(['conv-1']);
    const c = cases[0] as EvalCase;
    expect(c.records.map((r) => [r.goldId, r.goldSession, r.actor])).toEqual([
      ['D1:1', 'session_1', 'Ann'],
      ['D1:2', 'session_1', 'Bob'],
      ['D1:3', 'session_1', 'Bob'],
      ['D2:1', 'session_2', 'Ann'],
      ['D2:2', 'session_2', 'Bob'],
    ]);
    expect(c.records.map((r) => r.record.observedAt)).toEqual([
      '2023-05-08T13:56:00.000Z',
      '2023-05-08T13:57:00.000Z',
      '2023-05-08T13:58:00.000Z',
      '2023-05-10T00:05:00.000Z',
      '2023-05-10T00:06:00.000Z',
    ]);
    expect(c.records[1]?.record).toMatchObject({
      kind: 'user_message',
      source: 'user',
      userId: 'Bob',
      agentId: 'locomo',
      sessionId: 'session_1',
    });
    expect(c.records[2]?.record.text).toBe('Look at him! [shares a photo: a photo of a dog]');
    expect(c.failedRuns).toEqual([]);
    expectWellFormed(cases, [
      'ANSWER-MARKER',
      'ADVERSARIAL-MARKER',
      'EVENT-MARKER',
      'OBSERVATION-MARKER',
      'SUMMARY-MARKER',
      'IMAGE-QUERY-MARKER',
    ]);
  });

  it('maps questions to categories, cleans malformed evidence and marks adversarial ones unanswerable', async () => {
    const { cases, issues } = await load('locomo', 'locomo/locomo10.public.json');
    const queries = (cases[0] as EvalCase).queries;
    expect(queries.map((q) => [q.queryId, q.category, q.goldEvidence, q.unanswerable])).toEqual([
      ['q1', 'temporal', ['D1:2'], false],
      ['q2', 'multi-hop', ['D1:3', 'D2:2'], false],
      ['q3', 'single-hop', ['D2:1'], false],
      ['q4', 'adversarial', ['D1:2'], true],
      ['q5', 'open-domain', [], false],
    ]);
    expect(new Set(queries.map((q) => q.askedAt))).toEqual(new Set(['2023-05-11T00:06:00.000Z']));
    expect(queries[0]?.text).toBe('When did Bob adopt a dog?');
    expect(issues).toEqual([
      'locomo conv-1 q2: evidence "D1:3; D2:2" read as D1:3, D2:2',
      'locomo conv-1 q3: evidence "D": dropped D (no such turn)',
      'locomo conv-1 q3: evidence "D9:9": dropped D9:9 (no such turn)',
      'locomo conv-1 q4: evidence "D:1:2" read as D1:2',
      'locomo conv-1 q5: no gold evidence',
    ]);
  });

  it('gives the same ids for the same input', async () => {
    const [a, b] = await Promise.all([load('locomo', 'locomo'), load('locomo', 'locomo')]);
    expect(a.cases[0]?.records.map((r) => r.record.id)).toEqual(b.cases[0]?.records.map((r) => r.record.id));
  });

  it('names the file and the problem when the input is not LoCoMo', async () => {
    await expect(load('locomo', 'locomo-bad/list.json')).rejects.toThrow(
      /^locomo: .*list\.json: expected a JSON list of conversations$/,
    );
    await expect(load('locomo', 'locomo-bad-date')).rejects.toThrow(
      /x\.json: \[0\]\.conversation\.session_2_date_time: expected a date like/,
    );
    await expect(load('locomo', 'missing.json')).rejects.toThrow(DatasetFormatError);
  });
});

describe('beam', () => {
  const user = (id: number, content: string, extra: object = {}) => ({ role: 'user', id, content, ...extra });
  const assistant = (id: number, content: string) => ({ role: 'assistant', id, content });
  const chat = [
    {
      batch_number: 1,
      time_anchor: null,
      turns: [
        [
          user(0, 'My deadline is March 29. ->-> 1,1', {
            time_anchor: 'March-15-2024',
            index: '1,1',
            question_type: 'main_question',
          }),
          assistant(1, 'Noted, let us plan backwards.'),
        ],
        [
          user(2, 'The API answers in 400ms. ->-> 1,2', { index: '1,2', question_type: 'main_question' }),
          assistant(3, 'That is a bit slow.'),
        ],
      ],
    },
    {
      batch_number: 2,
      time_anchor: null,
      turns: [
        [
          user(4, 'After caching the API answers in 250ms. ->-> 2,1', { time_anchor: 'April-05-2024' }),
          assistant(5, 'Great improvement! ->-> 2,1'),
        ],
      ],
    },
  ];
  const questions = {
    information_extraction: [{ question: 'When is my deadline?', answer: 'ANSWER-MARKER', source_chat_ids: [0] }],
    knowledge_update: [
      { question: 'How fast is the API?', answer: '250ms', source_chat_ids: { original_info: [2], updated_info: [4] } },
    ],
    abstention: [
      { question: 'Which database do I use?', ideal_response: 'RESPONSE-MARKER', why_unanswerable: 'never said' },
    ],
    temporal_reasoning: [
      {
        question: 'How long between the anchor dates?',
        answer: '3 weeks',
        source_chat_ids: { first_event: [0], second_event: [4] },
      },
    ],
    event_ordering: [
      { question: 'In which order did I mention things?', answer: 'x', source_chat_ids: [0, [2, 4], 99] },
    ],
  };

  beforeAll(async () => {
    await write('beam/README.md', 'not data');
    await write('beam/10/chat.json', [{ batch_number: 1, turns: [[user(0, 'Hello'), assistant(1, 'Hi')]] }]);
    await write('beam/10/probing_questions.json', {});
    await write('beam/2/chat.json', chat);
    await write('beam/2/probing_questions.json', questions);
    await write('beam-bad/1/chat.json', { batches: [] });
    await write('beam-bad/1/probing_questions.json', {});
    await write('beam-noq/1/chat.json', chat);
  });

  it('maps messages to user and agent messages, one batch one session, timed from the latest anchor', async () => {
    const { cases } = await load('beam', 'beam');
    expect(cases.map((c) => c.caseId)).toEqual(['chat-2', 'chat-10']);
    const c = cases[0] as EvalCase;
    expect(c.records.map((r) => [r.goldId, r.goldSession, r.record.kind])).toEqual([
      ['0', 'batch-1', 'user_message'],
      ['1', 'batch-1', 'agent_message'],
      ['2', 'batch-1', 'user_message'],
      ['3', 'batch-1', 'agent_message'],
      ['4', 'batch-2', 'user_message'],
      ['5', 'batch-2', 'agent_message'],
    ]);
    expect(c.records.map((r) => r.record.observedAt)).toEqual([
      '2024-03-15T09:00:00.000Z',
      '2024-03-15T09:01:00.000Z',
      '2024-03-15T09:02:00.000Z',
      '2024-03-15T09:03:00.000Z',
      '2024-04-05T09:00:00.000Z',
      '2024-04-05T09:01:00.000Z',
    ]);
    expect(c.records[0]?.record).toMatchObject({
      userId: 'user',
      source: 'user',
      agentId: 'beam',
      sessionId: 'batch-1',
      text: 'My deadline is March 29.',
    });
    expect(c.records[5]?.record).toMatchObject({ source: 'agent', role: 'assistant', text: 'Great improvement!' });
    expectWellFormed(cases, ['->->', 'ANSWER-MARKER', 'RESPONSE-MARKER']);
  });

  it('maps probing questions: evidence from every id shape, knowledge updates, abstention', async () => {
    const { cases, issues } = await load('beam', 'beam');
    const queries = (cases[0] as EvalCase).queries;
    expect(queries.map((q) => [q.queryId, q.category, q.goldEvidence, q.unanswerable])).toEqual([
      ['information_extraction-1', 'information_extraction', ['0'], false],
      ['knowledge_update-1', 'knowledge_update', ['2', '4'], false],
      ['abstention-1', 'abstention', [], true],
      ['temporal_reasoning-1', 'temporal_reasoning', ['0', '4'], false],
      ['event_ordering-1', 'event_ordering', ['0', '2', '4'], false],
    ]);
    expect(queries[1]?.update).toEqual({ original: ['2'], updated: ['4'] });
    expect(queries.filter((q) => q.update)).toHaveLength(1);
    expect(queries[0]).toMatchObject({ text: 'When is my deadline?', askedAt: '2024-04-06T09:01:00.000Z' });
    expect(issues).toEqual([
      'beam chat-2 event_ordering-1: nested id list [2,4] flattened',
      'beam chat-2 event_ordering-1: dropped ["99"] (not message ids of this chat)',
    ]);
  });

  it('names the file and the problem when the input is not BEAM', async () => {
    await expect(load('beam', 'beam-bad')).rejects.toThrow(
      /^beam: .*beam-bad\/1\/chat\.json: expected a JSON list of batches$/,
    );
    await expect(load('beam', 'beam-noq')).rejects.toThrow(/^beam: .*probing_questions\.json: cannot read it/);
    await expect(load('beam', 'nowhere')).rejects.toThrow(
      /^beam: .*nowhere: expected a folder of <id>\/chat\.json chats$/,
    );
  });
});

describe('tau-bench', () => {
  const info = {
    task: {
      user_id: 'ann_1',
      instruction: 'INSTRUCTION-MARKER: you want to move your flight',
      actions: [{ name: 'GOLD-ACTION-MARKER', kwargs: {} }],
      outputs: [],
    },
    source: 'user',
    reward_info: { reward: 0, info: { r_actions: 0 }, actions: [{ name: 'REWARD-ACTION-MARKER', kwargs: {} }] },
  };
  const call = (id: string, name: string, args: object, content: string | null = null) => ({
    content,
    role: 'assistant',
    tool_calls: [{ function: { arguments: JSON.stringify(args), name }, id, type: 'function' }],
  });
  const tool = (id: string, name: string, content: string) => ({ role: 'tool', tool_call_id: id, name, content });
  const failedTraj = [
    { role: 'system', content: 'POLICY-MARKER: you are an airline agent' },
    { role: 'user', content: 'Hi, I want to move my flight ABC123 to tomorrow.' },
    call('c1', 'get_reservation_details', { reservation_id: 'ABC123' }),
    tool('c1', 'get_reservation_details', '{"reservation_id": "ABC123", "cabin": "economy"}'),
    call(
      'c2',
      'update_reservation_flights',
      { reservation_id: 'ABC123', flights: ['HAT001'] },
      'Let me move you to HAT001.',
    ),
    tool('c2', 'update_reservation_flights', 'Error: not enough seats on flight HAT001'),
    call('c3', 'update_reservation_flights', { reservation_id: 'ABC123', flights: ['HAT002'] }),
    tool('c3', 'update_reservation_flights', '{"reservation_id": "ABC123", "flights": ["HAT002"]}'),
    { role: 'assistant', content: 'You are now on HAT002.' },
    { role: 'user', content: 'Thanks! ###STOP###' },
  ];
  const okTraj = [
    { role: 'system', content: 'POLICY-MARKER' },
    { role: 'user', content: 'Please move ABC123.' },
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: '###STOP###' },
  ];
  const runs = [
    { task_id: 4, trial: 1, reward: 1.0, info, traj: okTraj },
    { task_id: 4, trial: 0, reward: 0.0, info, traj: failedTraj },
    { task_id: 2, trial: 0, reward: 1.0, info, traj: okTraj },
  ];
  const markers = ['INSTRUCTION-MARKER', 'GOLD-ACTION-MARKER', 'REWARD-ACTION-MARKER', 'POLICY-MARKER', '###STOP###'];

  beforeAll(async () => {
    await write('tau/gpt-4o-airline.public.json', runs);
    await write('tau-bad/runs.json', { runs });
    await write('tau-dup/runs.json', [runs[0], runs[0]]);
  });

  it('makes one case per task with its trials in order, each trial its own session and task', async () => {
    const { cases } = await load('tau-bench', 'tau');
    expect(cases.map((c) => c.caseId)).toEqual(['task-2', 'task-4']);
    const c = cases[1] as EvalCase;
    expect([...new Set(c.records.map((r) => r.goldSession))]).toEqual(['task-4-trial-0', 'task-4-trial-1']);
    expect(c.records[0]?.record).toMatchObject({
      sessionId: 'task-4-trial-0',
      taskId: 'task-4-trial-0',
      taskType: 'airline-task-4',
      userId: 'customer-4',
      agentId: 'tau-bench',
    });
    expect(c.records.find((r) => r.goldSession === 'task-4-trial-1')?.record.observedAt.slice(0, 10)).toBe(
      '2024-05-16',
    );
    expect(c.queries).toEqual([]);
    expect(c.failedRuns).toEqual([{ runId: 'task-4-trial-0', goldSession: 'task-4-trial-0' }]);
    expectWellFormed(cases, markers);
  });

  it('maps messages, tool calls, tool results, tool errors and the outcome, by step', async () => {
    const { cases } = await load('tau-bench', 'tau/gpt-4o-airline.public.json');
    const trial0 = (cases[1] as EvalCase).records.filter((r) => r.goldSession === 'task-4-trial-0');
    expect(trial0.map((r) => [r.goldId, r.step, r.record.kind])).toEqual([
      ['t0:1', 1, 'user_message'],
      ['t0:2', 2, 'tool_call'],
      ['t0:3', 3, 'tool_result'],
      ['t0:4', 4, 'agent_message'],
      ['t0:4.1', 4, 'tool_call'],
      ['t0:5', 5, 'error'],
      ['t0:6', 6, 'tool_call'],
      ['t0:7', 7, 'tool_result'],
      ['t0:8', 8, 'agent_message'],
      ['t0:9', 9, 'user_message'],
      ['t0:outcome', 10, 'task_outcome'],
    ]);
    const byId = new Map(trial0.map((r) => [r.goldId, r.record]));
    expect(byId.get('t0:2')).toMatchObject({
      source: 'agent',
      payload: { tool: 'get_reservation_details', args: { reservation_id: 'ABC123' } },
    });
    expect(byId.get('t0:3')).toMatchObject({ source: 'tool', payload: { tool: 'get_reservation_details' } });
    expect(byId.get('t0:5')).toMatchObject({
      source: 'tool',
      text: 'Error: not enough seats on flight HAT001',
      payload: { tool: 'update_reservation_flights' },
      tags: ['failure'],
    });
    expect(byId.get('t0:9')?.text).toBe('Thanks!');
    expect(byId.get('t0:outcome')).toMatchObject({ source: 'system', outcome: { status: 'failure', reward: 0 } });
    const trial1 = (cases[1] as EvalCase).records.filter((r) => r.goldSession === 'task-4-trial-1');
    expect(trial1.map((r) => r.goldId)).toEqual(['t1:1', 't1:2', 't1:outcome']);
    expect(trial1.at(-1)?.record.outcome).toEqual({ status: 'success', reward: 1 });
  });

  it('shows the replay a tool error with its failed call, retry and successful result', async () => {
    const { cases } = await load('tau-bench', 'tau');
    const findings = attributeEpisode(episodeOf(cases[1] as EvalCase, 'task-4-trial-0'));
    const toolError = findings.find((f) => f.type === 'tool_error');
    expect(toolError?.tool).toBe('update_reservation_flights');
    expect(toolError?.evidence.map((e) => e.record.kind)).toEqual(['tool_call', 'error', 'tool_call', 'tool_result']);
  });

  it('names the file and the problem when the input is not tau-bench', async () => {
    await expect(load('tau-bench', 'tau-bad')).rejects.toThrow(
      /^tau-bench: .*runs\.json: expected a JSON list of runs/,
    );
    await expect(load('tau-bench', 'tau-dup')).rejects.toThrow(/task 4 has trial 1 twice/);
  });
});

describe('who-and-when', () => {
  const algorithmLog = {
    is_correct: false,
    question: 'How many clients get the sunset awning?',
    question_ID: 'q-1',
    level: '1',
    ground_truth: 'GROUND-TRUTH-MARKER',
    history: [
      {
        content: 'You are given a task.\n# General Task\nHow many clients get the sunset awning?',
        name: 'Excel_Expert',
        role: 'assistant',
      },
      {
        content: 'exitcode: 1 (execution failed)\nCode output: KeyError: Street',
        name: 'Computer_terminal',
        role: 'user',
      },
      { content: 'The column is called "Street Address"; counting even numbers.', name: 'Excel_Expert', role: 'user' },
      { content: 'exitcode: 0 (execution succeeded)\nCode output: 4', name: 'Computer_terminal', role: 'user' },
      { content: 'The answer is 4. TERMINATE', name: 'Verification_Expert', role: 'user' },
    ],
    mistake_agent: 'Excel_Expert',
    mistake_step: '2',
    mistake_reason: 'REASON-MARKER',
    system_prompt: { Excel_Expert: 'SYSTEM-PROMPT-MARKER' },
  };
  const handLog = {
    is_corrected: false,
    question: 'Where can I take martial arts classes near the NYSE?',
    question_ID: 'q-2',
    ground_truth: 'GROUND-TRUTH-MARKER',
    history: [
      { content: 'Where can I take martial arts classes near the NYSE?', role: 'human' },
      { content: 'Initial plan: search the web.', role: 'Orchestrator (thought)' },
      { content: 'Search for martial arts schools near Wall Street.', role: 'Orchestrator (-> WebSurfer)' },
      { content: 'I typed "martial arts Wall Street" into the search bar.', role: 'WebSurfer' },
    ],
    mistake_agent: 'Orchestrator',
    mistake_step: '2',
    mistake_reason: 'REASON-MARKER',
  };

  beforeAll(async () => {
    await write('ww/README.md', 'not data');
    await write('ww/hand-crafted/3.json', handLog);
    await write('ww/algorithm-generated/11.json', algorithmLog);
    await write('ww/algorithm-generated/1.json', algorithmLog);
    await write('ww-empty/nothing.txt', '');
    await write('ww-bad/hand-crafted/1.json', { ...handLog, history: 'none' });
  });

  it('makes one case per log: agents as agent messages, terminal output as tool results, an error on a failed exit', async () => {
    const { cases } = await load('who-and-when', 'ww');
    expect(cases.map((c) => c.caseId)).toEqual(['algorithm-generated-1', 'algorithm-generated-11', 'hand-crafted-3']);
    const c = cases[0] as EvalCase;
    expect(c.records.map((r) => [r.goldId, r.step, r.actor, r.record.kind])).toEqual([
      ['step:0', 0, 'Excel_Expert', 'agent_message'],
      ['step:1', 1, 'Computer_terminal', 'error'],
      ['step:2', 2, 'Excel_Expert', 'agent_message'],
      ['step:3', 3, 'Computer_terminal', 'tool_result'],
      ['step:4', 4, 'Verification_Expert', 'agent_message'],
      ['outcome', 5, 'environment', 'task_outcome'],
    ]);
    expect(c.records[1]?.record).toMatchObject({
      source: 'tool',
      payload: { tool: 'Computer_terminal', exitCode: 1 },
      tags: ['failure'],
    });
    expect(c.records[3]?.record).toMatchObject({ source: 'tool', payload: { tool: 'Computer_terminal', exitCode: 0 } });
    expect(c.records[0]?.record).toMatchObject({
      source: 'agent',
      role: 'Excel_Expert',
      sessionId: 'algorithm-generated-1',
      agentId: 'who-and-when',
    });
    expect(c.records.at(-1)?.record.outcome?.status).toBe('failure');
    expect(new Set(c.records.map((r) => r.goldSession))).toEqual(new Set(['algorithm-generated-1']));
    expect(c.failedRuns).toEqual([
      {
        runId: 'algorithm-generated-1',
        goldSession: 'algorithm-generated-1',
        mistakeStep: 2,
        mistakeAgent: 'Excel_Expert',
      },
    ]);
    expect(c.queries).toEqual([]);
    expect(attributeEpisode(episodeOf(c, 'algorithm-generated-1')).some((f) => f.type === 'tool_error')).toBe(true);
    expectWellFormed(cases, ['GROUND-TRUTH-MARKER', 'REASON-MARKER', 'SYSTEM-PROMPT-MARKER']);
  });

  it('reads hand-crafted logs: the human question as a user message, speaker labels as agents', async () => {
    const { cases, issues } = await load('who-and-when', 'ww');
    const c = cases[2] as EvalCase;
    expect(c.records.map((r) => [r.actor, r.record.kind, r.record.role])).toEqual([
      ['human', 'user_message', 'user'],
      ['Orchestrator', 'agent_message', 'Orchestrator (thought)'],
      ['Orchestrator', 'agent_message', 'Orchestrator (-> WebSurfer)'],
      ['WebSurfer', 'agent_message', 'WebSurfer'],
      ['environment', 'task_outcome', undefined],
    ]);
    expect(c.records[0]?.record).toMatchObject({
      source: 'user',
      text: 'Where can I take martial arts classes near the NYSE?',
    });
    expect(c.failedRuns[0]).toMatchObject({ mistakeStep: 2, mistakeAgent: 'Orchestrator' });
    expect(issues).toEqual([]);
  });

  it('names the folder or file and the problem when the input is not Who&When', async () => {
    await expect(load('who-and-when', 'ww-empty')).rejects.toThrow(
      /^who-and-when: .*ww-empty: expected algorithm-generated\/ or hand-crafted\/ folders/,
    );
    await expect(load('who-and-when', 'ww-bad')).rejects.toThrow(/^who-and-when: .*hand-crafted\/1\.json: history: /);
  });
});

describe('defaultDatasetPath', () => {
  it('resolves each dataset folder under NOCTURNE_DATASETS, or ../shared/datasets next to the repository', () => {
    expect(defaultDatasetPath('beam', { NOCTURNE_DATASETS: '/data/sets' })).toBe('/data/sets/beam-100k');
    expect(defaultDatasetPath('tau-bench', { NOCTURNE_DATASETS: '/data/sets' })).toBe('/data/sets/tau-bench-airline');
    const repo = path.resolve(import.meta.dirname, '..', '..');
    expect(defaultDatasetPath('locomo', {})).toBe(path.resolve(repo, '..', 'shared', 'datasets', 'locomo'));
    expect(defaultDatasetPath('who-and-when', {})).toBe(path.resolve(repo, '..', 'shared', 'datasets', 'who-and-when'));
  });
});
