import type { Client } from '@temporalio/client';
import { TENANT } from '../contracts/search-attributes.ts';
import { consolidationId } from '../contracts/workflow-ids.ts';

/**
 * The workflow id of a consolidation of the tenant that is running, whatever its id (today's,
 * yesterday's, a backfill): found through visibility, by the tenant's search attribute or, for a
 * run no worker has picked up yet, by its id's prefix. `nocturne run` and `nocturne rollback run`
 * refuse while there is one.
 */
export async function runningConsolidation(client: Client, tenantId: string): Promise<string | undefined> {
  const query =
    `WorkflowType = 'consolidateTenantWorkflow' AND ExecutionStatus = 'Running' AND ` +
    `(${TENANT.name} = '${tenantId}' OR WorkflowId STARTS_WITH '${consolidationId(tenantId, '')}')`;
  for await (const execution of client.workflow.list({ query, pageSize: 1 })) return execution.workflowId;
  return undefined;
}
