import { WorkflowUpdateFailedError } from '@temporalio/client';
import { approveUpdate, rejectUpdate } from '../../../workflows/consolidate-messages.ts';
import { loadConfig } from '../../config.ts';
import { withTemporalClient } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printLine } from '../output.ts';

export interface DecisionOptions {
  operator: string;
  reason?: string;
}

/** `nocturne approve|reject`: sends the staged run the Update it waits for; the run's validator may refuse it. */
export async function decideCommand(
  decision: 'approve' | 'reject',
  workflowId: string,
  opts: DecisionOptions,
): Promise<void> {
  if (opts.operator.trim() === '') throw new UsageError('--operator: required (who decides)');
  if (decision === 'reject' && !opts.reason?.trim()) throw new UsageError('--reason: required to reject');
  const update = decision === 'approve' ? approveUpdate : rejectUpdate;
  await withTemporalClient(loadConfig(), async (client) => {
    const handle = client.workflow.getHandle(workflowId);
    try {
      await handle.executeUpdate(update, {
        args: [{ operator: opts.operator, ...(opts.reason ? { reason: opts.reason } : {}) }],
      });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new Error(`${workflowId} refused ${decision}: ${error.cause?.message ?? error.message}`, {
          cause: error,
        });
      throw error;
    }
    printLine(`${decision === 'approve' ? 'approved' : 'rejected'} ${workflowId} (operator ${opts.operator})`);
  });
}
