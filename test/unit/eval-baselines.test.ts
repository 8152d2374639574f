import { describe, expect, it } from 'vitest';
import { calibrateAbstention, quantile } from '../../tools/eval/abstention.ts';
import { bm25 } from '../../tools/eval/baselines/bm25.ts';
import { recentHistory } from '../../tools/eval/baselines/recent-history.ts';
import { turnsOf, type Turn } from '../../tools/eval/baselines/turns.ts';
import { failedRunOutcomes } from '../../tools/eval/failed-runs.ts';
import { cutoffInstant, isAfter, parseCutoff } from '../../tools/eval/cutoff.ts';
import { tenantFor } from '../../tools/eval/runner.ts';
import type { NoteVersion } from '../../src/contracts/note.ts';
import type { EvalCase, EvalRecord, QueryOutcome } from '../../tools/eval/types.ts';

const turn = (goldId: string, text: string, minute: number): Turn => ({
  goldId,
  goldSession: 'S1',
  text,
  observedAt: `2024-01-01T00:${String(minute).padStart(2, '0')}:00Z`,
});

const record = (
  goldId: string,
  step: number,
  minute: number,
  extra: Partial<EvalRecord['record']> = {},
): EvalRecord => ({
  goldId,
  goldSession: 'run-1',
  step,
  actor: `agent-${step}`,
  record: {
    id: `01JD00000000000000000000${String(step).padStart(2, '0')}`,
    tenantId: 'eval',
    agentId: 'a',
    sessionId: 'run-1',
    kind: 'agent_message',
    observedAt: `2024-01-01T00:${String(minute).padStart(2, '0')}:00Z`,
    text: `step ${step}`,
    ...extra,
  },
});

describe('raw-turn baselines', () => {
  const turns = [
    turn('D1:1', 'Caroline: I went to the support group yesterday', 0),
    turn('D1:2', 'Melanie: That sounds great, I painted a lake sunrise', 1),
    turn('D1:3', 'Caroline: The support group meets every Tuesday at the library', 2),
  ];

  it('BM25 ranks the turns sharing the rare terms first, and returns nothing for unknown words', async () => {
    const hits = await bm25(turns).search('When does the support group meets?', 2);
    expect(hits.map((h) => turns[h.turn]?.goldId)).toEqual(['D1:3', 'D1:1']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(await bm25(turns).search('quantum chromodynamics', 5)).toEqual([]);
  });

  it('recent history returns the newest turns that fit the window, whatever the question', async () => {
    const window = recentHistory(turns, 30);
    expect((await window.search('anything', 10)).map((h) => turns[h.turn]?.goldId)).toEqual(['D1:3', 'D1:2']);
    expect((await window.search('anything', 1)).map((h) => turns[h.turn]?.goldId)).toEqual(['D1:3']);
  });

  it('indexes every record with text as "speaker: text"', () => {
    const r = record('D1:1', 0, 0, { kind: 'user_message', userId: 'Caroline', text: 'I went camping.' });
    expect(turnsOf([r, record('x', 1, 1, { text: '' })]).map((t) => t.text)).toEqual(['Caroline: I went camping.']);
  });
});

describe('temporal cutoff', () => {
  const evalCase = { records: [0, 1, 2, 3, 4].map((m) => record(`r${m}`, m, m)) } as EvalCase;

  it('a share keeps the first records of each case; an instant is used as given; 1 holds nothing out', () => {
    expect(cutoffInstant(evalCase, parseCutoff('0.8'))).toBe('2024-01-01T00:03:00Z');
    expect(cutoffInstant(evalCase, parseCutoff('0.1'))).toBe('2024-01-01T00:00:00Z');
    expect(cutoffInstant(evalCase, parseCutoff('1'))).toBeUndefined();
    expect(cutoffInstant(evalCase, parseCutoff('2024-01-01T00:02:00Z'))).toBe('2024-01-01T00:02:00.000Z');
    expect(isAfter('2024-01-01T00:04:00Z', '2024-01-01T00:03:00Z')).toBe(true);
    expect(isAfter('2024-01-01T00:03:00Z', '2024-01-01T00:03:00Z')).toBe(false);
  });

  it('rejects shares out of range and text that is neither a share nor a date', () => {
    expect(() => parseCutoff('0')).toThrow(/\(0, 1\]/);
    expect(() => parseCutoff('1.5')).toThrow(/\(0, 1\]/);
    expect(() => parseCutoff('last tuesday')).toThrow(/share such as 0.8 or an ISO date-time/);
  });
});

describe('abstention calibration', () => {
  it('puts each scored method where it declines 10% of answerable questions, and marks the rest', () => {
    const queries = Array.from({ length: 10 }, (_, i) => ({
      queryId: `q${i}`,
      category: 'c',
      text: 't',
      askedAt: '',
      goldEvidence: ['x'],
      unanswerable: i === 9,
    }));
    const evalCase = { caseId: 'c1', queries } as unknown as EvalCase;
    const outcome = (i: number, method: QueryOutcome['method'], score: number | undefined): QueryOutcome => ({
      dataset: 'locomo',
      caseId: 'c1',
      queryId: `q${i}`,
      method,
      latencyMs: 1,
      abstained: false,
      items: score === undefined ? [] : [{ goldIds: [], goldSessions: [], score, tokens: 1, afterCutoff: false }],
    });
    const outcomes = [
      ...queries.map((_, i) => outcome(i, 'dense', i === 9 ? 0.1 : 0.5 + i / 100)),
      ...queries.map((_, i) => outcome(i, 'recent-history', 1)),
      ...queries.map((_, i) => outcome(i, 'no-memory', undefined)),
    ];
    const thresholds = calibrateAbstention([evalCase], outcomes);
    expect(thresholds).toEqual([
      { method: 'dense', threshold: 0.5 },
      { method: 'recent-history', threshold: null },
      { method: 'no-memory', threshold: null },
    ]);
    expect(outcomes.filter((o) => o.method === 'dense' && o.abstained).map((o) => o.queryId)).toEqual(['q9']);
    expect(outcomes.filter((o) => o.method === 'recent-history' && o.abstained)).toHaveLength(0);
    expect(outcomes.filter((o) => o.method === 'no-memory' && o.abstained)).toHaveLength(10);
    expect(quantile([5, 1, 3, 2, 4], 0.4)).toBe(2);
  });
});

describe('failed runs', () => {
  const records = [record('step:0', 0, 0), record('step:1', 1, 1), record('step:2', 2, 2)];
  const byRecordId = new Map(records.map((r) => [r.record.id, r]));
  const note = (kind: NoteVersion['kind'], steps: number[], status: NoteVersion['status'] = 'active') =>
    ({
      kind,
      status,
      sourceKind: 'tool_fact',
      evidence: steps.map((s) => ({ recordId: `01JD00000000000000000000${String(s).padStart(2, '0')}` })),
    }) as unknown as NoteVersion;
  const evalCase = {
    dataset: 'who-and-when',
    caseId: 'log-1',
    failedRuns: [{ runId: 'run-1', goldSession: 'run-1', mistakeStep: 1, mistakeAgent: 'agent-1' }],
  } as unknown as EvalCase;

  it('counts the notes drawn from a run and blames the earliest step a failure lesson cites', () => {
    const [out] = failedRunOutcomes(
      evalCase,
      [note('fact', [0]), note('tool_behavior', [2, 1]), note('strategy', [0], 'retired')],
      byRecordId,
    );
    expect(out).toMatchObject({
      runId: 'run-1',
      notes: 2,
      attributedStep: 1,
      attributedAgent: 'agent-1',
      mistakeStep: 1,
      mistakeAgent: 'agent-1',
    });
  });

  it('a tool error is blamed on the agent step that called the tool, not on the tool', () => {
    const withTool = [...records, record('step:3', 3, 3, { kind: 'error', role: 'Computer_terminal' })];
    withTool[3]!.actor = 'Computer_terminal';
    const [out] = failedRunOutcomes(
      { ...evalCase, records: withTool } as EvalCase,
      [note('tool_behavior', [3])],
      new Map(withTool.map((r) => [r.record.id, r])),
    );
    expect(out).toMatchObject({ attributedStep: 2, attributedAgent: 'agent-2' });
  });

  it('a run nothing was learned from has no notes and no attributed step', () => {
    const [out] = failedRunOutcomes(evalCase, [], byRecordId);
    expect(out).toEqual({
      dataset: 'who-and-when',
      caseId: 'log-1',
      runId: 'run-1',
      notes: 0,
      explained: false,
      mistakeStep: 1,
      mistakeAgent: 'agent-1',
    });
  });
});

describe('tenants', () => {
  it('one valid tenant id per case', () => {
    expect(tenantFor('who-and-when', 'hand-crafted/3')).toBe('who-and-when-hand-crafted-3');
    expect(tenantFor('locomo', 'x'.repeat(100))).toHaveLength(64);
  });
});
