import { ParentClosePolicy, condition, startChild } from '@temporalio/workflow';

/** What a run reports about one of its indexing steps (a workflow of its own) when it finishes. */
export interface RunStepReport {
  /** The step's workflow id, to follow it in the UI. */
  workflowId: string;
  /** The step had finished its work when the run finished. */
  complete: boolean;
  /** Why the step failed, when it failed within the wait (it may be started again). */
  error?: string;
}

/** One indexing step of a run, started; the run asks whether it has ended and how. */
export interface RunStep {
  readonly workflowId: string;
  settled(): boolean;
  report(): RunStepReport;
  /** Waits for this step at most `seconds` (0: not at all) and reports on it. */
  wait(seconds: number): Promise<RunStepReport>;
}

/**
 * Starts a child workflow that the run abandons when it closes, so the step outlives the run
 * (recall does not need it to finish; the run reports whether it had).
 */
export async function startAbandonedStep<A>(
  workflow: (input: A) => Promise<unknown>,
  workflowId: string,
  input: A,
): Promise<RunStep> {
  const child = await startChild(workflow, {
    workflowId,
    args: [input],
    parentClosePolicy: ParentClosePolicy.ABANDON,
  });
  let settled = false;
  let error: string | undefined;
  void child
    .result()
    .catch((e: unknown) => {
      const cause = (e as { cause?: unknown }).cause;
      error = cause instanceof Error ? cause.message : e instanceof Error ? e.message : String(e);
    })
    .finally(() => {
      settled = true;
    });
  const step: RunStep = {
    workflowId,
    settled: () => settled,
    report: () => ({ workflowId, complete: settled && error === undefined, ...(error !== undefined ? { error } : {}) }),
    async wait(seconds) {
      await waitForSteps([step], seconds);
      return step.report();
    },
  };
  return step;
}

/** Waits until every step has ended, at most `seconds` in all (0: not at all). */
export async function waitForSteps(steps: readonly RunStep[], seconds: number): Promise<void> {
  if (seconds > 0) await condition(() => steps.every((s) => s.settled()), seconds * 1000);
}
