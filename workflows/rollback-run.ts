import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { RollbackRunResult } from '../activities/rollback-run.ts';
import { TenantId } from '../src/contracts/ids.ts';
import { describeInputError, RollbackRunInput } from '../src/contracts/workflow-inputs.ts';
import { COMMIT, REINDEX } from './activity-options.ts';

const { rollbackRun } = proxyActivities<ConsolidationActivities>(COMMIT);
const { reindexBatch } = proxyActivities<ConsolidationActivities>(REINDEX);

/**
 * The input the UI sends. `tenantId` is optional: runs live per tenant (row-level security),
 * and consolidation run ids (`consolidate/<tenant>/<date>/<temporal run id>`) name their tenant.
 * When both are given they must agree, so a typo cannot roll back another tenant's run.
 */
export const RollbackRunWorkflowInput = RollbackRunInput.extend({ tenantId: TenantId.optional() });
export type RollbackRunWorkflowInput = { runId: string; reason: string; operator: string; tenantId?: string };

/** The tenant a run id names, if it follows the consolidation id scheme. */
export function tenantOfRunId(runId: string): string | undefined {
  const m = /^consolidate\/([^/]+)\//.exec(runId);
  return m?.[1] !== undefined && TenantId.safeParse(m[1]).success ? m[1] : undefined;
}

function invalid(detail: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`invalid rollbackRunWorkflow input: ${detail}`, 'InvalidWorkflowInput');
}

/**
 * Operator rollback of a whole run, startable from the Temporal UI with one JSON input:
 * `{ "runId": "consolidate/acme/2026-11-30/…", "reason": "…", "operator": "…" }`.
 * Every note the run changed goes back to its version before the run (notes it created are
 * retired), in one audited batch; a second identical rollback changes nothing.
 */
export async function rollbackRunWorkflow(raw: RollbackRunWorkflowInput): Promise<RollbackRunResult> {
  const parsed = RollbackRunWorkflowInput.safeParse(raw);
  if (!parsed.success) throw invalid(describeInputError(parsed.error));
  const { runId, reason, operator } = parsed.data;
  const derived = tenantOfRunId(runId);
  const tenantId = parsed.data.tenantId ?? derived;
  if (tenantId === undefined)
    throw invalid('tenantId: required when runId does not name its tenant (consolidate/<tenant>/…)');
  if (derived !== undefined && derived !== tenantId)
    throw invalid(`tenantId: ${tenantId} does not match the tenant of runId (${derived})`);
  const requestId = workflowInfo().workflowId;
  const result = await rollbackRun({ tenantId, runId, reason, operator, requestId });
  if (!result.noop) await reindexBatch({ runId: `rollback-run/${requestId}`, tenantId, batchNo: 0 });
  return result;
}
