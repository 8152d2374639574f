import { finishRun, planRun, type FinishRunInput, type PlanRunInput } from '../src/consolidation/plan-run.ts';
import { classified, type ActivityDeps } from './deps.ts';

export type { FinishRunInput, PlanRunInput, PlanRunResult } from '../src/consolidation/plan-run.ts';

export function createPlanActivities(deps: ActivityDeps) {
  return {
    /** Records the run and stores its budgeted, importance-weighted sample of episodes. Idempotent. */
    planRun: classified((input: PlanRunInput) => planRun(deps, input)),
    /** Writes the run's outcome and returns the note versions it changed (what an operator reads). */
    finishRun: classified((input: FinishRunInput) => finishRun(deps, input)),
  };
}
