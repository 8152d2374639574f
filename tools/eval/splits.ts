import { CASE_SPLITS, type PositionedCase } from './case-selection.ts';
import type { DatasetSummary, SplitSummary } from './summary-types.ts';
import { summarize } from './summary.ts';
import type { EvalDataset, FailedRunOutcome, QueryOutcome } from './types.ts';

interface SplitInput {
  dataset: EvalDataset;
  cases: readonly PositionedCase[];
  outcomes: readonly QueryOutcome[];
  failedRuns: readonly FailedRunOutcome[];
  ks: readonly number[];
  unknowable: ReadonlySet<string>;
  unknowableUpdates?: ReadonlySet<string>;
}

/**
 * The dataset's summary per split (tools/eval/case-selection.ts), for every split the run has cases
 * of, with each of the split's cases summarized alone beside it.
 */
export function summarizeSplits(input: SplitInput): SplitSummary[] {
  return (CASE_SPLITS[input.dataset] ?? []).flatMap((split) => {
    const cases = input.cases.filter((c) => split.positions.includes(c.position));
    const summary = summaryOf(input, cases);
    if (!summary) return [];
    const byCase = cases.flatMap((c) => {
      const alone = summaryOf(input, [c]);
      return alone ? [{ position: c.position, caseId: c.evalCase.caseId, summary: alone }] : [];
    });
    const caseIds = cases.map((c) => c.evalCase.caseId);
    return [{ name: split.name, positions: cases.map((c) => c.position), caseIds, summary, byCase }];
  });
}

/** The summary of some of the run's cases, undefined when there are none. */
function summaryOf(input: SplitInput, cases: readonly PositionedCase[]): DatasetSummary | undefined {
  if (cases.length === 0) return undefined;
  const ids = new Set(cases.map((c) => c.evalCase.caseId));
  return summarize({
    cases: cases.map((c) => c.evalCase),
    outcomes: input.outcomes.filter((o) => ids.has(o.caseId)),
    failedRuns: input.failedRuns.filter((r) => ids.has(r.caseId)),
    ks: input.ks,
    unknowable: input.unknowable,
    ...(input.unknowableUpdates ? { unknowableUpdates: input.unknowableUpdates } : {}),
  }).datasets[0];
}
