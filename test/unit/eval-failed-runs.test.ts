import { describe, expect, it } from 'vitest';
import type { NoteVersion } from '../../src/contracts/note.ts';
import { explainsFailure, failedRunOutcomes } from '../../tools/eval/failed-runs.ts';
import { failureLessonYield } from '../../tools/eval/metrics.ts';
import type { EvalCase, EvalRecord } from '../../tools/eval/types.ts';

// A tau-bench task with two trials: t0 failed, t1 succeeded. Every record is one step of its trial.
const rec = (trial: number, step: number, kind: EvalRecord['record']['kind'], actor: string): EvalRecord => ({
  goldId: `t${trial}:${step}`,
  goldSession: `task-1/t${trial}`,
  step,
  actor,
  record: {
    id: `01JD0000000000000000000${trial}${step}`,
    tenantId: 'eval',
    agentId: 'airline',
    sessionId: `task-1/t${trial}`,
    kind,
    observedAt: `2024-01-01T00:0${trial}:0${step}Z`,
    text: `trial ${trial} step ${step}`,
  },
});
const records = [
  rec(0, 1, 'user_message', 'user'),
  rec(0, 2, 'tool_call', 'agent'),
  rec(0, 3, 'error', 'update_reservation_flights'),
  rec(0, 4, 'user_correction', 'user'),
  rec(1, 1, 'user_message', 'user'),
  rec(1, 2, 'tool_call', 'agent'),
];
const task: EvalCase = {
  dataset: 'tau-bench',
  caseId: 'task-1',
  records,
  queries: [],
  failedRuns: [{ runId: 'task-1/t0', goldSession: 'task-1/t0' }],
};
const byRecordId = new Map(records.map((r) => [r.record.id, r]));
const idOf = (goldId: string) => records.find((r) => r.goldId === goldId)?.record.id as string;

const note = (
  kind: NoteVersion['kind'],
  sourceKind: NoteVersion['sourceKind'],
  cites: string[],
  status: NoteVersion['status'] = 'active',
): NoteVersion =>
  ({ kind, sourceKind, status, evidence: cites.map((g) => ({ recordId: idOf(g) })) }) as unknown as NoteVersion;

describe('a note explains a failed run when it is a lesson that cites a record of that run', () => {
  const cases: Array<[string, NoteVersion, boolean]> = [
    ['a tool error without a retry, as a tool behaviour', note('tool_behavior', 'tool_fact', ['t0:3']), true],
    [
      'a failed trial contrasted with the successful one, as a strategy citing both',
      note('strategy', 'inference', ['t0:2', 't1:2']),
      true,
    ],
    ['a failure cause', note('failure_cause', 'inference', ['t0:2']), true],
    ['a constraint a tool demanded', note('constraint', 'tool_fact', ['t0:3']), true],
    ["a user's correction of what the agent did", note('fact', 'user_correction', ['t0:4']), true],
    ["a user's stated fact", note('fact', 'user_statement', ['t0:1']), false],
    ["a user's statement filed as a constraint", note('constraint', 'user_statement', ['t0:1']), false],
    ["a user's preference", note('preference', 'user_requirement', ['t0:1']), false],
    ['an episode digest', note('episode_summary', 'inference', ['t0:2', 't0:3']), false],
    ['a lesson from the successful trial only', note('strategy', 'inference', ['t1:2']), false],
    ['a lesson no longer in memory (retired)', note('tool_behavior', 'tool_fact', ['t0:3'], 'retired'), false],
    ['a lesson held back for review (quarantined)', note('tool_behavior', 'tool_fact', ['t0:3'], 'quarantined'), true],
  ];
  it.each(cases)('%s → %s', (_name, n, expected) => {
    const [run] = failedRunOutcomes(task, [n], byRecordId);
    expect(run?.explained).toBe(expected);
  });

  it('the kind and source decide, whatever finding produced the note', () => {
    expect(explainsFailure({ kind: 'tool_behavior', sourceKind: 'tool_fact' })).toBe(true);
    expect(explainsFailure({ kind: 'fact', sourceKind: 'tool_fact' })).toBe(false);
  });

  it('blames the agent step that called the failing tool, and the run counts in the yield', () => {
    const runs = failedRunOutcomes(
      task,
      [note('fact', 'user_statement', ['t0:1']), note('tool_behavior', 'tool_fact', ['t0:3'])],
      byRecordId,
    );
    expect(runs).toEqual([
      {
        dataset: 'tau-bench',
        caseId: 'task-1',
        runId: 'task-1/t0',
        notes: 2,
        explained: true,
        attributedStep: 2,
        attributedAgent: 'agent',
      },
    ]);
    const unexplained = failedRunOutcomes(task, [note('fact', 'user_statement', ['t0:1'])], byRecordId);
    expect(failureLessonYield([...runs, ...unexplained])).toEqual({ mean: 0.5, n: 2 });
  });
});

describe('where a failed multi-agent run went wrong: the step its failed outcome is traced to', () => {
  // A run whose coder recovered from a tool error, then an expert stated a wrong answer the verifier concluded with.
  const steps: Array<[number, EvalRecord['record']['kind'], string]> = [
    [1, 'user_message', 'user'],
    [2, 'tool_call', 'Coder'],
    [3, 'error', 'python'],
    [4, 'agent_message', 'Expert'],
    [5, 'agent_message', 'Verifier'],
    [6, 'task_outcome', 'harness'],
  ];
  const run = steps.map(([step, kind, actor]) => rec(0, step, kind, actor));
  const ww: EvalCase = { ...task, dataset: 'who-and-when', records: run };
  const byId = new Map(run.map((r) => [r.record.id, r]));
  const lesson = (kind: NoteVersion['kind'], sourceKind: NoteVersion['sourceKind'], cites: string[]) =>
    ({
      kind,
      sourceKind,
      status: 'active',
      evidence: cites.map((g) => ({ recordId: run.find((r) => r.goldId === g)?.record.id })),
    }) as unknown as NoteVersion;
  const recoveredError = lesson('tool_behavior', 'tool_fact', ['t0:3']);
  const blamed = (notes: NoteVersion[]) => {
    const [outcome] = failedRunOutcomes(ww, notes, byId);
    return [outcome?.attributedStep, outcome?.attributedAgent];
  };

  it('blames the step that first gave the answer the run ended with, not an earlier recovered error', () => {
    const answer = lesson('failure_cause', 'inference', ['t0:4', 't0:5', 't0:6']);
    expect(blamed([recoveredError, answer])).toEqual([4, 'Expert']);
  });

  it('falls back to the earliest step any lesson cites when no lesson traces the outcome to a step', () => {
    const noEarlierStep = lesson('failure_cause', 'inference', ['t0:5', 't0:6']);
    expect(blamed([recoveredError, noEarlierStep])).toEqual([2, 'Coder']);
    expect(blamed([recoveredError])).toEqual([2, 'Coder']);
  });
});
