import { describe, expect, it } from 'vitest';
import {
  abstainedOnUnanswerable,
  answeredUnknowable,
  attributionAccuracy,
  contextTokens,
  differenceInterval95,
  evidenceRecall,
  failedRunYield,
  falseAbstention,
  goldSessionsOf,
  mean,
  meanAndSpread,
  nocturneAttribution,
  percentile,
  recalledAfterCutoff,
  sessionRecall,
  updateOrder,
} from '../../tools/eval/metrics.ts';
import { queryKey, unknowableAfter, updatesAfter } from '../../tools/eval/questions.ts';
import { summarize } from '../../tools/eval/summary.ts';
import type {
  EvalCase,
  EvalQuery,
  EvalRecord,
  FailedRunOutcome,
  QueryOutcome,
  RetrievedItem,
} from '../../tools/eval/types.ts';

function item(goldIds: string[], extra: Partial<RetrievedItem> = {}): RetrievedItem {
  return {
    goldIds,
    goldSessions: goldIds.map((id) => id.split(':')[0] ?? id),
    score: 1,
    tokens: 10,
    afterCutoff: false,
    ...extra,
  };
}

function query(goldEvidence: string[], extra: Partial<EvalQuery> = {}): EvalQuery {
  return {
    queryId: 'q1',
    category: 'single-hop',
    text: 'where?',
    askedAt: '2024-01-01T00:00:00.000Z',
    goldEvidence,
    unanswerable: false,
    ...extra,
  };
}

function outcome(items: RetrievedItem[], extra: Partial<QueryOutcome> = {}): QueryOutcome {
  return {
    dataset: 'locomo',
    caseId: 'c1',
    queryId: 'q1',
    method: 'dense',
    items,
    latencyMs: 5,
    abstained: false,
    ...extra,
  };
}

describe('evidenceRecall', () => {
  it('is the share of gold ids covered by the union of the top k, plus any and all', () => {
    const out = outcome([item(['D1:1']), item(['D9:9']), item(['D1:3', 'D2:1'])]);
    const q = query(['D1:1', 'D1:3', 'D2:1', 'D3:1']);
    expect(evidenceRecall(q, out, 1)).toEqual({ fraction: 0.25, any: 1, all: 0 });
    expect(evidenceRecall(q, out, 2)).toEqual({ fraction: 0.25, any: 1, all: 0 });
    expect(evidenceRecall(q, out, 3)).toEqual({ fraction: 0.75, any: 1, all: 0 });
  });

  it('is 1 on every count when all gold evidence is covered', () => {
    expect(evidenceRecall(query(['D1:1', 'D1:2']), outcome([item(['D1:2', 'D1:1'])]), 5)).toEqual({
      fraction: 1,
      any: 1,
      all: 1,
    });
  });

  it('is 0 when nothing is covered, including when the method returned nothing', () => {
    expect(evidenceRecall(query(['D1:1']), outcome([item(['D1:2'])]), 5)).toEqual({ fraction: 0, any: 0, all: 0 });
    expect(evidenceRecall(query(['D1:1']), outcome([]), 5)).toEqual({ fraction: 0, any: 0, all: 0 });
  });

  it('is undefined (skipped, not 0) for a query without gold evidence', () => {
    expect(evidenceRecall(query([]), outcome([item(['D1:1'])]), 5)).toBeUndefined();
  });

  it('counts a gold id cited by several items, or listed twice, once', () => {
    const out = outcome([item(['D1:1']), item(['D1:1']), item(['D1:1', 'D1:1'])]);
    expect(evidenceRecall(query(['D1:1', 'D1:1', 'D1:2']), out, 3)).toEqual({ fraction: 0.5, any: 1, all: 0 });
  });

  it('takes what there is when k exceeds the items', () => {
    expect(evidenceRecall(query(['D1:1', 'D1:2']), outcome([item(['D1:1'])]), 100)?.fraction).toBe(0.5);
  });

  it('keeps the method order among equal scores: the k-th item is the k-th returned', () => {
    const out = outcome([item(['D1:1'], { score: 0.5 }), item(['D1:2'], { score: 0.5 })]);
    expect(evidenceRecall(query(['D1:2']), out, 1)?.fraction).toBe(0);
    expect(evidenceRecall(query(['D1:2']), out, 2)?.fraction).toBe(1);
  });
});

describe('sessionRecall', () => {
  const sessionOf = new Map([
    ['D1:1', 'S1'],
    ['D1:2', 'S1'],
    ['D2:1', 'S2'],
  ]);

  it('maps gold evidence to its sessions, leaving out ids with no record', () => {
    expect([...goldSessionsOf(query(['D1:1', 'D1:2', 'D2:1', 'D7:7']), sessionOf)].sort()).toEqual(['S1', 'S2']);
  });

  it('is the share of gold sessions among the top k sessions', () => {
    const out = outcome([item(['x'], { goldSessions: ['S2'] }), item(['y'], { goldSessions: ['S3', 'S1'] })]);
    expect(sessionRecall(new Set(['S1', 'S2']), out, 1)).toEqual({ fraction: 0.5, any: 1, all: 0 });
    expect(sessionRecall(new Set(['S1', 'S2']), out, 2)).toEqual({ fraction: 1, any: 1, all: 1 });
    expect(sessionRecall(new Set(['S4']), out, 2)).toEqual({ fraction: 0, any: 0, all: 0 });
  });

  it('is undefined without gold sessions', () => {
    expect(sessionRecall(new Set(), outcome([item(['x'])]), 5)).toBeUndefined();
  });
});

describe('cutoff metrics', () => {
  it('flags an outcome whose top k holds memory from after the cutoff, and only within k', () => {
    const out = outcome([item(['a']), item(['b'], { afterCutoff: true })]);
    expect(recalledAfterCutoff(out, 1)).toBe(0);
    expect(recalledAfterCutoff(out, 2)).toBe(1);
    expect(recalledAfterCutoff(outcome([]), 5)).toBe(0);
  });

  it('answered unknowable: 1 when the method answered a question only later records could answer', () => {
    expect(answeredUnknowable(outcome([item(['a'])]), true)).toBe(1);
    expect(answeredUnknowable(outcome([], { abstained: true }), true)).toBe(0);
    expect(answeredUnknowable(outcome([item(['a'])]), false)).toBeUndefined();
  });
});

describe('abstention', () => {
  it('counts abstaining on an unanswerable question as right and on an answerable one as a false abstention', () => {
    const unanswerable = query(['D1:1'], { unanswerable: true });
    const answerable = query(['D1:1']);
    const abstained = outcome([], { abstained: true });
    const answered = outcome([item(['D1:1'])]);
    expect(abstainedOnUnanswerable(unanswerable, abstained)).toBe(1);
    expect(abstainedOnUnanswerable(unanswerable, answered)).toBe(0);
    expect(abstainedOnUnanswerable(answerable, abstained)).toBeUndefined();
    expect(falseAbstention(answerable, abstained)).toBe(1);
    expect(falseAbstention(answerable, answered)).toBe(0);
    expect(falseAbstention(unanswerable, abstained)).toBeUndefined();
  });
});

describe('updateOrder', () => {
  const q = query(['10', '20'], { update: { original: ['10'], updated: ['20'] } });

  it('is 1 when the updated information ranks above the original', () => {
    expect(updateOrder(q, outcome([item(['20']), item(['10'])]), 5)).toEqual({ ordered: 1, updatedFound: 1 });
  });

  it('is 0 when the original ranks above the updated one', () => {
    expect(updateOrder(q, outcome([item(['10']), item(['20'])]), 5)).toEqual({ ordered: 0, updatedFound: 1 });
  });

  it('is 1 when only the updated information is found, also when the original is beyond k', () => {
    expect(updateOrder(q, outcome([item(['x']), item(['20'])]), 5)).toEqual({ ordered: 1, updatedFound: 1 });
    expect(updateOrder(q, outcome([item(['20']), item(['10'])]), 1)).toEqual({ ordered: 1, updatedFound: 1 });
  });

  it('is 0 when only the original is found, or neither', () => {
    expect(updateOrder(q, outcome([item(['10'])]), 5)).toEqual({ ordered: 0, updatedFound: 0 });
    expect(updateOrder(q, outcome([item(['x'])]), 5)).toEqual({ ordered: 0, updatedFound: 0 });
    expect(updateOrder(q, outcome([item(['10']), item(['20'])]), 1)).toEqual({ ordered: 0, updatedFound: 0 });
  });

  it('is 0 when one item covers both: a tie is not ranking the update above', () => {
    expect(updateOrder(q, outcome([item(['10', '20'])]), 5)).toEqual({ ordered: 0, updatedFound: 1 });
  });

  it('scores no order when the dataset names one message for both, only whether it is found', () => {
    const one = query(['30'], { update: { original: ['30'], updated: ['30'] } });
    expect(updateOrder(one, outcome([item(['30'])]), 5)).toEqual({ ordered: undefined, updatedFound: 1 });
    expect(updateOrder(one, outcome([item(['x'])]), 5)).toEqual({ ordered: undefined, updatedFound: 0 });
  });

  it('uses the best rank of each side', () => {
    expect(updateOrder(q, outcome([item(['20']), item(['10']), item(['20'])]), 5)?.ordered).toBe(1);
  });

  it('is undefined for a question that is not an update', () => {
    expect(updateOrder(query(['10']), outcome([item(['10'])]), 5)).toBeUndefined();
  });
});

describe('contextTokens', () => {
  it('sums the tokens of the top k', () => {
    const out = outcome([item(['a'], { tokens: 7 }), item(['b'], { tokens: 5 }), item(['c'], { tokens: 100 })]);
    expect(contextTokens(out, 2)).toBe(12);
    expect(contextTokens(out, 10)).toBe(112);
    expect(contextTokens(outcome([]), 10)).toBe(0);
  });
});

describe('percentile (nearest rank)', () => {
  it.each<[number[], number, number]>([
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50, 5],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95, 10],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90, 9],
    [[15, 20, 35, 40, 50], 50, 35],
    [[40, 15, 50, 20, 35], 95, 50],
    [[3, 1, 2, 4], 50, 2],
    [[7], 95, 7],
    [[7, 3], 0, 3],
    [[7, 3], 100, 7],
  ])('of %j at p%d is %d', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it('keeps a whole rank whole despite floating point (p7 of 1..100 is 7, not 8)', () => {
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        7,
      ),
    ).toBe(7);
  });

  it('is undefined for no values and refuses p outside 0..100', () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('mean', () => {
  it('skips undefined values instead of counting them as 0', () => {
    expect(mean([1, undefined, 0, 1])).toEqual({ mean: 2 / 3, n: 3 });
    expect(mean([undefined])).toEqual({ mean: null, n: 0 });
  });

  it('keeps the sample standard deviation when asked, from two values on', () => {
    const spread = meanAndSpread([1, undefined, 0, 1, 0]);
    expect(spread.mean).toBe(0.5);
    expect(spread.sd).toBeCloseTo(Math.sqrt(1 / 3), 12);
    expect(meanAndSpread([1])).toEqual({ mean: 1, n: 1 });
    expect(meanAndSpread([])).toEqual({ mean: null, n: 0 });
  });

  it('gives the 95% interval of a difference of two means from their spreads and counts', () => {
    // 400 questions on each side, sd 0.4 on each: 1.96 × √(0.16/400 × 2) ≈ 0.0554 (±5.5 points).
    expect(differenceInterval95({ mean: 0.7, n: 400, sd: 0.4 }, { mean: 0.67, n: 400, sd: 0.4 })).toBeCloseTo(
      1.96 * Math.sqrt(0.0008),
      12,
    );
    // Four times the questions halve it.
    const wide = differenceInterval95({ mean: 0.7, n: 100, sd: 0.4 }, { mean: 0.6, n: 100, sd: 0.4 }) as number;
    const narrow = differenceInterval95({ mean: 0.7, n: 400, sd: 0.4 }, { mean: 0.6, n: 400, sd: 0.4 }) as number;
    expect(narrow).toBeCloseTo(wide / 2, 12);
    expect(differenceInterval95({ mean: 0.7, n: 3 }, { mean: 0.6, n: 3, sd: 0.1 })).toBeUndefined();
  });
});

describe('failed runs', () => {
  function run(extra: Partial<FailedRunOutcome>): FailedRunOutcome {
    return { dataset: 'who-and-when', caseId: 'c', runId: 'r', notes: 0, ...extra };
  }

  it('yield is the share of runs with at least one note', () => {
    expect(failedRunYield([run({ notes: 0 }), run({ notes: 1 }), run({ notes: 3 }), run({ notes: 0 })])).toEqual({
      mean: 0.5,
      n: 4,
    });
    expect(failedRunYield([])).toEqual({ mean: null, n: 0 });
  });

  it('attribution: exact, within one step and agent, over runs with a gold label; no attribution is wrong', () => {
    const runs = [
      run({ mistakeStep: 4, attributedStep: 4, mistakeAgent: 'Coder', attributedAgent: 'Coder' }),
      run({ mistakeStep: 4, attributedStep: 5, mistakeAgent: 'Coder', attributedAgent: 'Planner' }),
      run({ mistakeStep: 4, attributedStep: 2, mistakeAgent: 'Coder' }),
      run({ mistakeStep: 4 }),
      run({ attributedStep: 1 }),
    ];
    const accuracy = attributionAccuracy(runs, nocturneAttribution);
    expect(accuracy.stepExact).toEqual({ mean: 0.25, n: 4 });
    expect(accuracy.stepWithinOne).toEqual({ mean: 0.5, n: 4 });
    expect(accuracy.agent).toEqual({ mean: 1 / 3, n: 3 });
  });

  it('a constant baseline is scored by the same rule', () => {
    const runs = [run({ mistakeStep: 1 }), run({ mistakeStep: 2 }), run({ mistakeStep: 3 }), run({ mistakeStep: 0 })];
    const accuracy = attributionAccuracy(runs, () => ({ step: 1 }));
    expect(accuracy.stepExact.mean).toBe(0.25);
    expect(accuracy.stepWithinOne.mean).toBe(0.75);
    expect(accuracy.agent).toEqual({ mean: null, n: 0 });
  });
});

describe('summarize', () => {
  const AT = '2024-01-01T00:00:00.000Z';

  function record(goldId: string, goldSession: string, observedAt = AT, extra: Partial<EvalRecord> = {}): EvalRecord {
    return { goldId, goldSession, record: { observedAt } as EvalRecord['record'], ...extra };
  }

  const locomo: EvalCase = {
    dataset: 'locomo',
    caseId: 'c1',
    records: [record('D1:1', 'S1'), record('D1:2', 'S1'), record('D2:1', 'S2', '2024-03-01T00:00:00.000Z')],
    queries: [
      query(['D1:1', 'D2:1'], { queryId: 'a', category: 'multi-hop' }),
      query(['D1:2'], { queryId: 'b', category: 'single-hop' }),
      query([], { queryId: 'c', category: 'single-hop' }),
      query(['D2:1'], { queryId: 'd', category: 'adversarial', unanswerable: true }),
    ],
    failedRuns: [],
  };

  const outcomes: QueryOutcome[] = [
    outcome(
      [item(['D1:1'], { goldSessions: ['S1'], tokens: 4 }), item(['D2:1'], { goldSessions: ['S2'], tokens: 6 })],
      { queryId: 'a', latencyMs: 10 },
    ),
    outcome([item(['D9:9'], { goldSessions: ['S1'], tokens: 8, afterCutoff: true })], { queryId: 'b', latencyMs: 30 }),
    outcome([item(['D1:1'], { goldSessions: ['S1'], tokens: 2 })], { queryId: 'c', latencyMs: 20 }),
    outcome([], { queryId: 'd', latencyMs: 40, abstained: true }),
    outcome([item(['D1:2'], { goldSessions: ['S1'], tokens: 1 })], { queryId: 'b', method: 'full-text', latencyMs: 1 }),
  ];

  it('means each metric over the queries it applies to, per method and category', () => {
    const summary = summarize({
      cases: [locomo],
      outcomes,
      failedRuns: [],
      ks: [2, 1],
      unknowable: unknowableAfter([locomo], '2024-02-01T00:00:00.000Z'),
    });
    expect(summary.ks).toEqual([1, 2]);
    expect(summary.headlineK).toBe(2);
    const [dataset] = summary.datasets;
    expect(dataset?.methods.map((m) => m.method)).toEqual(['full-text', 'dense']);
    const dense = dataset?.methods[1];
    const at1 = dense?.overall.atK[0];
    const at2 = dense?.overall.atK[1];
    // a: 1/2 at k=1, 1 at k=2; b: 0; c has no gold evidence; d (gold D2:1 only, after the
    // cutoff) is left out of recall: nobody can recall what was held out.
    // Evidence recall keeps its spread too (the split report's interval needs it).
    expect(at1?.evidenceRecall).toEqual({ mean: 0.5 / 2, n: 2, sd: Math.sqrt(0.125) });
    expect(at2?.evidenceRecall).toEqual({ mean: 1 / 2, n: 2, sd: Math.sqrt(0.5) });
    expect(at2?.evidenceAll).toEqual({ mean: 1 / 2, n: 2 });
    // Sessions: a {S1,S2} 1/2 then 1; b {S1} 1.
    expect(at1?.sessionRecall).toEqual({ mean: 1.5 / 2, n: 2 });
    expect(at2?.sessionRecall).toEqual({ mean: 2 / 2, n: 2 });
    expect(at2?.recalledAfterCutoff).toEqual({ mean: 0.25, n: 4 });
    expect(at2?.tokens).toEqual({ mean: (10 + 8 + 2 + 0) / 4, n: 4 });
    expect(dense?.overall.abstainedOnUnanswerable).toEqual({ mean: 1, n: 1 });
    expect(dense?.overall.falseAbstention).toEqual({ mean: 0, n: 3 });
    // a and d rest (partly or wholly) on D2:1 from March; only d lies wholly after the cutoff.
    expect(dense?.overall.answeredUnknowable).toEqual({ mean: 0, n: 1 });
    expect(dense?.overall.latencyMs).toEqual({ p50: 20, p95: 40, n: 4 });
    expect(dense?.byCategory.map((c) => [c.category, c.queries])).toEqual([
      ['adversarial', 1],
      ['multi-hop', 1],
      ['single-hop', 2],
    ]);
    expect(dense?.byCategory[2]?.atK[1]?.evidenceRecall).toEqual({ mean: 0, n: 1 });
  });

  it('refuses an outcome for an unknown query, a repeated outcome and a k below 1', () => {
    expect(() =>
      summarize({ cases: [locomo], outcomes: [outcome([], { queryId: 'zzz' })], failedRuns: [], ks: [1] }),
    ).toThrow(/unknown query/);
    expect(() =>
      summarize({
        cases: [locomo],
        outcomes: [outcomes[0] as QueryOutcome, outcomes[0] as QueryOutcome],
        failedRuns: [],
        ks: [1],
      }),
    ).toThrow(/two outcomes/);
    expect(() => summarize({ cases: [locomo], outcomes, failedRuns: [], ks: [0] })).toThrow(/positive integer/);
    expect(() => summarize({ cases: [locomo], outcomes, failedRuns: [], ks: [5], headlineK: 10 })).toThrow(
      /headline k/,
    );
  });

  it('scores failed runs against Nocturne and the first-agent-step baseline', () => {
    const log: EvalCase = {
      dataset: 'who-and-when',
      caseId: 'hand-crafted-1',
      records: [
        record('step:0', 'log', AT, { step: 0, actor: 'human' }),
        record('step:2', 'log', AT, { step: 2, actor: 'Coder' }),
        record('step:1', 'log', AT, { step: 1, actor: 'Planner' }),
      ],
      queries: [],
      failedRuns: [{ runId: 'log', goldSession: 'log', mistakeStep: 2, mistakeAgent: 'Coder' }],
    };
    const failed: FailedRunOutcome = {
      dataset: 'who-and-when',
      caseId: 'hand-crafted-1',
      runId: 'log',
      notes: 2,
      attributedStep: 2,
      attributedAgent: 'Planner',
      mistakeStep: 2,
      mistakeAgent: 'Coder',
    };
    const [dataset] = summarize({ cases: [log], outcomes: [], failedRuns: [failed], ks: [10] }).datasets;
    expect(dataset?.methods).toEqual([]);
    expect(dataset?.failedRuns?.withNotes).toEqual({ mean: 1, n: 1 });
    expect(dataset?.failedRuns?.withFailureLesson).toEqual({ mean: 1, n: 1 });
    expect(dataset?.failedRuns?.nocturne).toEqual({
      stepExact: { mean: 1, n: 1 },
      stepWithinOne: { mean: 1, n: 1 },
      agent: { mean: 0, n: 1 },
    });
    // Baseline blames step 1 (Planner): one step off, wrong agent.
    expect(dataset?.failedRuns?.firstAgentStep).toEqual({
      stepExact: { mean: 0, n: 1 },
      stepWithinOne: { mean: 1, n: 1 },
      agent: { mean: 0, n: 1 },
    });
  });

  it('leaves an update observed after the cutoff out of the update order, and keeps its question in recall', () => {
    const beam: EvalCase = {
      dataset: 'beam',
      caseId: 'chat-1',
      records: [record('1', 'S1'), record('2', 'S1'), record('3', 'S2', '2024-03-01T00:00:00.000Z')],
      queries: [
        query(['1', '2'], {
          queryId: 'before',
          category: 'knowledge_update',
          update: { original: ['1'], updated: ['2'] },
        }),
        query(['1', '3'], {
          queryId: 'later',
          category: 'knowledge_update',
          update: { original: ['1'], updated: ['3'] },
        }),
      ],
      failedRuns: [],
    };
    const cutoff = '2024-02-01T00:00:00.000Z';
    const later = updatesAfter([beam], cutoff);
    expect([...later]).toEqual([queryKey('beam', 'chat-1', 'later')]);
    // Both answers rank the original first: with the later update scored, 0 of 2 would be ordered.
    const answer = (queryId: string) =>
      outcome([item(['1']), item(['2'])], { dataset: 'beam', caseId: 'chat-1', queryId, method: 'nocturne' });
    const input = { cases: [beam], outcomes: [answer('before'), answer('later')], failedRuns: [], ks: [5] };
    const at5 = (s: ReturnType<typeof summarize>) => s.datasets[0]?.methods[0]?.overall.atK[0];
    expect(at5(summarize({ ...input, unknowableUpdates: later }))).toMatchObject({
      updateOrdered: { mean: 0, n: 1 },
      updateFound: { mean: 1, n: 1 },
      evidenceRecall: { n: 2 },
    });
    expect(at5(summarize(input))?.updateOrdered).toEqual({ mean: 0, n: 2 });
  });

  it('marks as unknowable only questions whose known gold evidence all lies after the cutoff', () => {
    const keys = unknowableAfter([locomo], () => '2024-02-01T00:00:00.000Z');
    expect([...keys]).toEqual([queryKey('locomo', 'c1', 'd')]);
    expect(unknowableAfter([locomo], '2025-01-01T00:00:00.000Z').size).toBe(0);
  });
});
