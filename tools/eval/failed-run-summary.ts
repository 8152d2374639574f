import {
  attributionAccuracy,
  failedRunYield,
  failureLessonYield,
  nocturneAttribution,
  type Attribution,
} from './metrics.ts';
import { caseKey } from './questions.ts';
import type { FailedRunSummary } from './summary-types.ts';
import type { EvalCase, FailedRunOutcome } from './types.ts';

/**
 * The "first agent step" baseline: step 0 is the task as posed (a question, a user's first
 * message), so blame the earliest step after it, and whoever took that step.
 */
function firstAgentStepOf(evalCase: EvalCase, runId: string): Attribution {
  const run = evalCase.failedRuns.find((r) => r.runId === runId);
  if (!run) throw new Error(`failed-run outcome for unknown run ${runId} in ${evalCase.dataset}/${evalCase.caseId}`);
  let first: { step: number; actor?: string } | undefined;
  for (const record of evalCase.records) {
    if (record.goldSession !== run.goldSession || record.step === undefined || record.step <= 0) continue;
    if (!first || record.step < first.step) first = { step: record.step, actor: record.actor };
  }
  return first ? { step: first.step, agent: first.actor } : {};
}

export function summarizeFailedRuns(
  runs: readonly FailedRunOutcome[],
  casesByKey: Map<string, EvalCase>,
): FailedRunSummary | null {
  if (runs.length === 0) return null;
  const baseline = (run: FailedRunOutcome): Attribution => {
    const evalCase = casesByKey.get(caseKey(run.dataset, run.caseId));
    if (!evalCase) throw new Error(`failed-run outcome for unknown case ${run.dataset}/${run.caseId}`);
    return firstAgentStepOf(evalCase, run.runId);
  };
  return {
    runs: runs.length,
    withNotes: failedRunYield(runs),
    withFailureLesson: failureLessonYield(runs),
    nocturne: attributionAccuracy(runs, nocturneAttribution),
    firstAgentStep: attributionAccuracy(runs, baseline),
  };
}
