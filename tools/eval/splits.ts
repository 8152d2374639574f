import { CASE_SPLITS, type PositionedCase } from './case-selection.ts';
import type { SplitSummary } from './summary-types.ts';
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

/** The dataset's summary per split (tools/eval/case-selection.ts), for every split the run has cases of. */
export function summarizeSplits(input: SplitInput): SplitSummary[] {
  return (CASE_SPLITS[input.dataset] ?? []).flatMap((split) => {
    const cases = input.cases.filter((c) => split.positions.includes(c.position));
    if (cases.length === 0) return [];
    const ids = new Set(cases.map((c) => c.evalCase.caseId));
    const [summary] = summarize({
      cases: cases.map((c) => c.evalCase),
      outcomes: input.outcomes.filter((o) => ids.has(o.caseId)),
      failedRuns: input.failedRuns.filter((r) => ids.has(r.caseId)),
      ks: input.ks,
      unknowable: input.unknowable,
      ...(input.unknowableUpdates ? { unknowableUpdates: input.unknowableUpdates } : {}),
    }).datasets;
    if (!summary) return [];
    return [{ name: split.name, positions: cases.map((c) => c.position), caseIds: [...ids], summary }];
  });
}
