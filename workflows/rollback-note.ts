import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { RollbackResult } from '../activities/rollback.ts';
import { describeInputError, RollbackNoteInput } from '../src/contracts/workflow-inputs.ts';
import { COMMIT, REINDEX } from './activity-options.ts';

const { rollbackNote } = proxyActivities<ConsolidationActivities>(COMMIT);
const { reindexBatch } = proxyActivities<ConsolidationActivities>(REINDEX);

/**
 * Operator rollback of one note, startable from the Temporal UI with one JSON input:
 * `{ "tenantId": "acme", "noteId": "…", "toVersion": 1, "reason": "…", "operator": "…" }`.
 */
export async function rollbackNoteWorkflow(raw: RollbackNoteInput): Promise<RollbackResult> {
  const parsed = RollbackNoteInput.safeParse(raw);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(
      `invalid rollbackNoteWorkflow input: ${describeInputError(parsed.error)}`,
      'InvalidWorkflowInput',
    );
  }
  const requestId = workflowInfo().workflowId;
  const result = await rollbackNote({ ...parsed.data, requestId });
  if (!result.noop) await reindexBatch({ runId: `rollback/${requestId}`, tenantId: parsed.data.tenantId, batchNo: 0 });
  return result;
}
