import { WorkflowFailedError, type Client } from '@temporalio/client';
import { loadConfig } from '../config.ts';
import { withTemporalClient } from '../runtime.ts';

export interface StartedWorkflow<R> {
  workflowId: string;
  runId: string;
  /** The workflow's result, when the caller waited for it. */
  result?: R;
}

/**
 * Starts a workflow on the configured task queue; with `wait`, returns its result. A workflow
 * failure becomes an Error with the failure's own message (exit code 1). `before` runs first on
 * the same connection and may refuse by throwing (nothing is started then).
 */
export async function startWorkflow<R>(
  workflowType: string,
  workflowId: string,
  input: unknown,
  wait: boolean,
  before?: (client: Client) => Promise<void>,
): Promise<StartedWorkflow<R>> {
  const config = loadConfig();
  return withTemporalClient(config, async (client) => {
    await before?.(client);
    const handle = await client.workflow.start(workflowType, {
      taskQueue: config.temporal.taskQueue,
      workflowId,
      args: [input],
    });
    if (!wait) return { workflowId, runId: handle.firstExecutionRunId };
    try {
      return { workflowId, runId: handle.firstExecutionRunId, result: (await handle.result()) as R };
    } catch (error) {
      if (error instanceof WorkflowFailedError)
        throw new Error(`${workflowId} failed: ${error.cause?.message ?? error.message}`, { cause: error });
      throw error;
    }
  });
}
