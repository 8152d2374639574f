import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { RollbackRunResult } from '../activities/rollback-run.ts';
import { rollbackRunBatchRunId, tenantOfRunId } from '../src/contracts/workflow-ids.ts';
import { RollbackRunWorkflowInput } from '../src/contracts/workflow-inputs.ts';
import { COMMIT, REINDEX } from './activity-options.ts';
import { freeOperationLease, OPERATION_LEASE_PATCH } from './operation-lease.ts';
import { invalidWorkflowInput, parseWorkflowInput } from './workflow-input.ts';

const { rollbackRun } = proxyActivities<ConsolidationActivities>(COMMIT);
const { reindexBatch } = proxyActivities<ConsolidationActivities>(REINDEX);

/**
 * Operator rollback of a whole run, startable from the Temporal UI with one JSON input:
 * `{ "runId": "consolidate/acme/2026-11-30/…", "reason": "…", "operator": "…" }`.
 * Every note the run changed goes back to its version before the run (notes it created are
 * retired), in one audited batch; a second identical rollback changes nothing. The rollback
 * holds the tenant's operation lease: refused with TenantBusy, naming the holder, while a
 * consolidation, erasure or reindex of the tenant holds it, whoever started this workflow.
 */
export async function rollbackRunWorkflow(raw: RollbackRunWorkflowInput): Promise<RollbackRunResult> {
  const input = parseWorkflowInput(RollbackRunWorkflowInput, raw);
  const { runId, reason, operator } = input;
  const derived = tenantOfRunId(runId);
  const tenantId = input.tenantId ?? derived;
  if (tenantId === undefined)
    throw invalidWorkflowInput('tenantId: required when runId does not name its tenant (consolidate/<tenant>/…)');
  if (derived !== undefined && derived !== tenantId)
    throw invalidWorkflowInput(`tenantId: ${tenantId} does not match the tenant of runId (${derived})`);
  const requestId = workflowInfo().workflowId;
  const leased = patched(OPERATION_LEASE_PATCH);
  let result: RollbackRunResult;
  try {
    result = await rollbackRun({ tenantId, runId, reason, operator, requestId });
  } finally {
    // Re-embedding what it wrote overlaps every other operation.
    if (leased) await freeOperationLease(tenantId);
  }
  if (!result.noop) await reindexBatch({ runId: rollbackRunBatchRunId(requestId), tenantId, batchNo: 0 });
  return result;
}
