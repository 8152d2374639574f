import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCutoff } from '../../tools/eval/cutoff.ts';
import { runEval, type EvalRun } from '../../tools/eval/runner.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';

// Tiny datasets in their real formats, run end to end on the real stack: archive, a Temporal
// consolidation run per case, recall, the baselines, metrics.

const turn = (speaker: string, dia_id: string, text: string) => ({ speaker, dia_id, text });
const conversation = {
  sample_id: 'conv-t',
  conversation: {
    speaker_a: 'Ann',
    speaker_b: 'Bob',
    session_1_date_time: '10:00 am on 1 May, 2023',
    session_1: [
      turn('Ann', 'D1:1', 'Hi Bob! How are you?'),
      turn('Bob', 'D1:2', 'I adopted a grey greyhound named Pixel from the shelter last week.'),
      turn('Ann', 'D1:3', 'I started pottery classes at the community college on Mondays.'),
      turn('Bob', 'D1:4', 'My sister moved to Lisbon for her new job in robotics.'),
    ],
    session_2_date_time: '4:00 pm on 20 June, 2023',
    session_2: [
      turn('Ann', 'D2:1', 'I sold my bicycle and bought a red kayak for the summer.'),
      turn('Bob', 'D2:2', 'Nice! I am training for a marathon in October.'),
    ],
  },
  qa: [
    { question: 'What is the name of the dog Bob adopted?', answer: 'Pixel', evidence: ['D1:2'], category: 4 },
    { question: "Where did Bob's sister move for her job?", answer: 'Lisbon', evidence: ['D1:4'], category: 4 },
    { question: 'What boat did Ann buy for the summer?', answer: 'a red kayak', evidence: ['D2:1'], category: 4 },
  ],
};

const call = (id: string, name: string, args: object) => ({
  content: null,
  role: 'assistant',
  tool_calls: [{ function: { arguments: JSON.stringify(args), name }, id, type: 'function' }],
});
const tool = (id: string, name: string, content: string) => ({ role: 'tool', tool_call_id: id, name, content });
const info = {
  task: { user_id: 'ann_1', instruction: 'HIDDEN GOAL', actions: [] },
  source: 'user',
  reward_info: { reward: 0 },
};
const failedTraj = [
  { role: 'system', content: 'policy' },
  { role: 'user', content: 'Please move reservation ABC123 to flight HAT002.' },
  call('c1', 'update_reservation_flights', { reservation_id: 'ABC123', flights: ['HAT001'] }),
  tool('c1', 'update_reservation_flights', 'Error: flight HAT001 is full in economy'),
  call('c2', 'update_reservation_flights', { reservation_id: 'ABC123', flights: ['HAT002'] }),
  tool('c2', 'update_reservation_flights', '{"reservation_id": "ABC123", "flights": ["HAT002"]}'),
  { role: 'assistant', content: 'Your reservation is now on HAT002.' },
];
const okTraj = [
  { role: 'system', content: 'policy' },
  { role: 'user', content: 'Please confirm ABC123.' },
  { role: 'assistant', content: 'ABC123 is confirmed.' },
];

let root: string;
let locomo: EvalRun;
let tau: EvalRun;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'nocturne-eval-'));
  await mkdir(path.join(root, 'locomo'));
  await writeFile(path.join(root, 'locomo', 'locomo.json'), JSON.stringify([conversation]));
  await writeFile(
    path.join(root, 'tau.json'),
    JSON.stringify([
      { task_id: 4, trial: 0, reward: 0, info, traj: failedTraj },
      { task_id: 4, trial: 1, reward: 1, info, traj: okTraj },
    ]),
  );
  const common = { ks: [1, 5], env: { ...process.env, ...stackEnv() }, log: () => {} };
  // Four of six turns known: session 2 is after the cutoff.
  locomo = await runEval({ ...common, dataset: 'locomo', path: path.join(root, 'locomo'), cutoff: parseCutoff('0.6') });
  tau = await runEval({
    ...common,
    dataset: 'tau-bench',
    path: path.join(root, 'tau.json'),
    cutoff: parseCutoff('0.8'),
  });
}, 240_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const nocturne = (run: EvalRun, queryId: string) =>
  run.outcomes.find((o) => o.method === 'nocturne' && o.queryId === queryId);

describe('nocturne eval on the real stack', () => {
  it('Nocturne recalls the note whose evidence is the gold turn, first', () => {
    const queries = locomo.outcomes.filter((o) => o.method === 'nocturne').map((o) => o.queryId);
    expect(queries).toHaveLength(3);
    expect(nocturne(locomo, queries[0] as string)?.items[0]?.goldIds).toEqual(['D1:2']);
    expect(nocturne(locomo, queries[1] as string)?.items[0]?.goldIds).toEqual(['D1:4']);
  });

  it('nothing after the cutoff is remembered: no method returns it, and the question is counted as unknowable', () => {
    expect(locomo.outcomes.flatMap((o) => o.items).filter((i) => i.afterCutoff)).toEqual([]);
    expect(locomo.outcomes.flatMap((o) => o.items.flatMap((i) => i.goldIds))).not.toContain('D2:1');
    const block = locomo.summary.datasets[0]?.methods.find((m) => m.method === 'nocturne')?.overall;
    expect(block?.answeredUnknowable.n).toBe(1);
  });

  it('summarizes every method on the same questions, with the baselines beside Nocturne', () => {
    const methods = locomo.summary.datasets[0]?.methods.map((m) => [m.method, m.overall.queries]);
    expect(methods).toEqual([
      ['no-memory', 3],
      ['recent-history', 3],
      ['full-text', 3],
      ['dense', 3],
      ['nocturne', 3],
    ]);
    const atK = (method: string) =>
      locomo.summary.datasets[0]?.methods.find((m) => m.method === method)?.overall.atK.find((a) => a.k === 5);
    expect(atK('no-memory')?.evidenceRecall.mean).toBe(0);
    expect(atK('nocturne')?.evidenceRecall.mean).toBeGreaterThan(0);
    expect(locomo.summary.meta.embedder).toMatch(/e5/);
  });

  it('draws the note-quality sample from the notes the run committed, each with the records it cites', () => {
    const { pool, drawn } = locomo.notesSample;
    expect(pool).toBeGreaterThan(0);
    expect(drawn).toHaveLength(Math.min(50, pool));
    for (const s of drawn) expect(s.records.map((r) => r.goldId)).not.toEqual([]);
    expect(JSON.stringify(tau.notesSample)).not.toContain('HIDDEN GOAL');
  });

  it("a failed tau-bench trial with a tool error yields a validated note, and the grader's goal never becomes memory", () => {
    expect(tau.failedRuns).toHaveLength(1);
    expect(tau.failedRuns[0]?.notes).toBeGreaterThanOrEqual(1);
    expect(tau.summary.datasets[0]?.failedRuns?.withNotes.mean).toBe(1);
    expect(JSON.stringify(tau)).not.toContain('HIDDEN GOAL');
  });
});
