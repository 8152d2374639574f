import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { RollbackResult } from '../activities/rollback.ts';
import { rollbackNoteBatchRunId } from '../src/contracts/workflow-ids.ts';
import { RollbackNoteInput } from '../src/contracts/workflow-inputs.ts';
import { COMMIT, REINDEX } from './activity-options.ts';
import { parseWorkflowInput } from './workflow-input.ts';

const { rollbackNote } = proxyActivities<ConsolidationActivities>(COMMIT);
const { reindexBatch } = proxyActivities<ConsolidationActivities>(REINDEX);

/**
 * Operator rollback of one note, startable from the Temporal UI with one JSON input:
 * `{ "tenantId": "acme", "noteId": "…", "reason": "…", "operator": "…" }` returns it to the version
 * before (a version-1 note is retired); `"toVersion": n` names the version, `0` or
 * `"action": "retire" | "quarantine"` takes it out of recall; `"successor": "retire" | "keep"`
 * settles the note that superseded a revived one. Reindexes whatever the rollback wrote, also
 * when a retried attempt finds its batch committed by the first.
 */
export async function rollbackNoteWorkflow(raw: RollbackNoteInput): Promise<RollbackResult> {
  const input = parseWorkflowInput(RollbackNoteInput, raw);
  const requestId = workflowInfo().workflowId;
  const result = await rollbackNote({ ...input, requestId });
  if (!result.noop)
    await reindexBatch({ runId: rollbackNoteBatchRunId(requestId), tenantId: input.tenantId, batchNo: 0 });
  return result;
}
