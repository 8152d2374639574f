import { describe, expect, it } from 'vitest';
import { ablatedRecall, describeAblations, parseAblations } from '../../tools/eval/ablations.ts';
import { parseCaseSelection, selectCases } from '../../tools/eval/case-selection.ts';
import { renderMarkdown } from '../../tools/eval/report/markdown.ts';
import { summarizeSplits } from '../../tools/eval/splits.ts';
import { summarize } from '../../tools/eval/summary.ts';
import type { EvalCase, QueryOutcome } from '../../tools/eval/types.ts';

const AT = '2024-01-01T00:00:00.000Z';

/** A LoCoMo conversation with one question whose gold evidence is `D1:1`. */
const conversation = (n: number): EvalCase => ({
  dataset: 'locomo',
  caseId: `conv-${n}`,
  records: [{ goldId: 'D1:1', goldSession: 'S1', record: { observedAt: AT } as EvalCase['records'][number]['record'] }],
  queries: [
    {
      queryId: 'q1',
      category: 'multi-hop',
      text: 'what?',
      askedAt: AT,
      goldEvidence: ['D1:1'],
      unanswerable: false,
    },
  ],
  failedRuns: [],
});

/** Nocturne finds the evidence in conversations `found`, not in the others; BM25 finds none. */
function outcomes(cases: readonly EvalCase[], found: readonly number[]): QueryOutcome[] {
  return cases.flatMap((c, i) =>
    (['full-text', 'nocturne'] as const).map((method) => ({
      dataset: 'locomo' as const,
      caseId: c.caseId,
      queryId: 'q1',
      method,
      items:
        method === 'nocturne' && found.includes(i + 1)
          ? [{ goldIds: ['D1:1'], goldSessions: ['S1'], score: 1, tokens: 1, afterCutoff: false }]
          : [],
      latencyMs: 1,
      abstained: false,
    })),
  );
}

describe('case selection', () => {
  it('reads positions and ranges, 1-based, each once, ascending', () => {
    expect(parseCaseSelection('1-3')).toEqual([1, 2, 3]);
    expect(parseCaseSelection('5,4')).toEqual([4, 5]);
    expect(parseCaseSelection('1-2, 2,5')).toEqual([1, 2, 5]);
    for (const bad of ['0', '3-1', 'a', '1-', '']) expect(() => parseCaseSelection(bad)).toThrow(/--cases/);
  });

  it('selects by position, keeps each case its position, then applies --limit', () => {
    const all = [1, 2, 3, 4, 5].map(conversation);
    expect(selectCases(all, [4, 5]).map((c) => [c.position, c.evalCase.caseId])).toEqual([
      [4, 'conv-4'],
      [5, 'conv-5'],
    ]);
    expect(selectCases(all, undefined, 2).map((c) => c.position)).toEqual([1, 2]);
    expect(selectCases(all, [2, 3, 4], 1).map((c) => c.position)).toEqual([2]);
    expect(() => selectCases(all, [6])).toThrow(/has 5/);
  });
});

describe('tuning and reporting splits', () => {
  const all = [1, 2, 3, 4, 5].map(conversation);
  const selected = selectCases(all);
  // Nocturne finds the evidence in conversations 1, 2, 3 and 4: 100% on tuning, 50% on reporting.
  const outs = outcomes(all, [1, 2, 3, 4]);
  const input = { dataset: 'locomo' as const, outcomes: outs, failedRuns: [], ks: [5], unknowable: new Set<string>() };

  it('summarizes LoCoMo conversations 1–3 and 4–5 apart, and reports the gap in points', () => {
    const splits = summarizeSplits({ ...input, cases: selected });
    expect(splits.map((s) => [s.name, s.positions, s.summary.queries])).toEqual([
      ['tuning', [1, 2, 3], 3],
      ['reporting', [4, 5], 2],
    ]);
    const summary = { ...summarize({ cases: all, outcomes: outs, failedRuns: [], ks: [5] }), splits };
    const report = renderMarkdown(summary);
    expect(report).toContain('### Tuning and reporting splits');
    // Tuning 1, 1, 1 (no spread), reporting 1, 0 (sd √½): 1.96 × √(0/3 + ½/2) = 0.98.
    expect(report).toContain('| nocturne | Evidence R@5 | 100.0% | 50.0% | -50.0 | ±98.0 | 80.0% |');
    expect(report).toContain('| full-text | Evidence R@5 | 0.0% | 0.0% | +0.0 | ±0.0 | 0.0% |');
    expect(report).toContain('| nocturne: multi-hop | Evidence R@5 | 100.0% | 50.0% | -50.0 | ±98.0 | 80.0% |');
  });

  it('summarizes each case alone beside its split, and the report shows each', () => {
    const splits = summarizeSplits({ ...input, cases: selected });
    expect(splits.map((s) => s.byCase.map((c) => [c.position, c.caseId, c.summary.queries]))).toEqual([
      [
        [1, 'conv-1', 1],
        [2, 'conv-2', 1],
        [3, 'conv-3', 1],
      ],
      [
        [4, 'conv-4', 1],
        [5, 'conv-5', 1],
      ],
    ]);
    const summary = { ...summarize({ cases: all, outcomes: outs, failedRuns: [], ks: [5] }), splits };
    const report = renderMarkdown(summary);
    expect(report).toContain(
      '| Case | Split | Questions with evidence | Nocturne R@5 | full-text R@5 | Lead (points) |',
    );
    expect(report).toContain('| 4 (conv-4) | reporting | 1 | 100.0% | 0.0% | +100.0 |');
    expect(report).toContain('| 5 (conv-5) | reporting | 1 | 0.0% | 0.0% | +0.0 |');
  });

  it('a run of one split says which, without a side-by-side table', () => {
    const cases = selectCases(all, [4, 5]);
    const splits = summarizeSplits({ ...input, cases, outcomes: outs.filter((o) => o.caseId >= 'conv-4') });
    expect(splits.map((s) => s.name)).toEqual(['reporting']);
    const summary = {
      ...summarize({
        cases: cases.map((c) => c.evalCase),
        outcomes: outs.filter((o) => o.caseId >= 'conv-4'),
        failedRuns: [],
        ks: [5],
      }),
      splits,
    };
    expect(renderMarkdown(summary)).toContain('Cases 4, 5 only: the reporting split.');
    expect(renderMarkdown(summary)).not.toContain('Gap (points)');
  });

  it('splits BEAM chats 1–5 (tuning) from 6–10 (reporting)', () => {
    const chats = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => ({ ...conversation(n), dataset: 'beam' as const }));
    const splits = summarizeSplits({
      ...input,
      dataset: 'beam',
      cases: selectCases(chats),
      outcomes: outcomes(chats, [1]).map((o) => ({ ...o, dataset: 'beam' as const })),
    });
    expect(splits.map((s) => [s.name, s.positions])).toEqual([
      ['tuning', [1, 2, 3, 4, 5]],
      ['reporting', [6, 7, 8, 9, 10]],
    ]);
  });

  it('a dataset without named splits has none', () => {
    expect(summarizeSplits({ ...input, dataset: 'tau-bench', cases: selected })).toEqual([]);
  });
});

describe('ablation switches', () => {
  it('reads known switches once each and names the known ones for an unknown one', () => {
    expect(parseAblations('records, records')).toEqual(['records']);
    expect(() => parseAblations('records,graphs')).toThrow(/unknown switch "graphs"; known: records/);
  });

  it('records: the recall request searches notes only', () => {
    const request = { tenantId: 't', query: 'q', k: 5 };
    expect(ablatedRecall(request, [])).toBe(request);
    expect(ablatedRecall(request, ['records'])).toEqual({ ...request, include: ['notes'] });
    expect(describeAblations(['records'])).toEqual([
      'records: recall leaves raw records out: notes (and digests) only',
    ]);
  });
});
