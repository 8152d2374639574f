import { finishRun, planRun, type FinishRunInput, type PlanRunInput } from '../src/consolidation/plan-run.ts';
import { classified, type ActivityDeps } from './deps.ts';
import { leased } from './tenant-operation.ts';

export type { FinishRunInput, PlanRunInput, PlanRunResult } from '../src/consolidation/plan-run.ts';

export function createPlanActivities(deps: ActivityDeps) {
  return {
    /**
     * Takes the tenant's operation lease for the run, then records the run and stores its
     * budgeted, importance-weighted sample of episodes. Idempotent.
     */
    planRun: classified(leased(deps, 'consolidation', (input: PlanRunInput) => planRun(deps, input))),
    /** Writes the run's outcome and returns the note versions it changed (what an operator reads). */
    finishRun: classified((input: FinishRunInput) => finishRun(deps, input)),
  };
}
