import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { listActiveTenants, type ListActiveTenantsInput } from '../src/archive/tenants.ts';
import { TenantId } from '../src/contracts/ids.ts';
import { TENANT } from '../src/contracts/search-attributes.ts';
import { classified, heartbeat, type ActivityDeps } from './deps.ts';

export type { ListActiveTenantsInput, ListActiveTenantsResult } from '../src/archive/tenants.ts';

export interface FindRunningInput {
  tenantId: string;
}

export interface FindRunningResult {
  /** Workflow id of a consolidation of this tenant that is running now, if any. */
  running?: string;
}

/**
 * Tenant discovery (from the archive, see src/archive/tenants.ts) and the cross-trigger
 * exclusion check.
 */
export function createTenantActivities(deps: ActivityDeps, opts: { client?: () => Client } = {}) {
  return {
    /** Distinct tenants with archive partitions (dated on or after `since`), sorted, one page. */
    listActiveTenants: classified((input: ListActiveTenantsInput) => listActiveTenants(deps.archive, input, heartbeat)),

    /**
     * Asks Temporal's visibility store whether a consolidation of the tenant is running, whatever
     * started it (nightly, conflict monitor, `nocturne run`, demo). Visibility lags a start by
     * milliseconds, so this is the second of two guards; the first is the per-day child id (see
     * workflows/nightly-consolidation.ts).
     */
    findRunningConsolidation: classified(async (input: FindRunningInput): Promise<FindRunningResult> => {
      const tenantId = TenantId.parse(input.tenantId);
      const client = opts.client?.() ?? Context.current().client;
      const query = `WorkflowType = 'consolidateTenantWorkflow' AND ExecutionStatus = 'Running' AND ${TENANT.name} = '${tenantId}'`;
      for await (const wf of client.workflow.list({ query, pageSize: 1 })) {
        return { running: wf.workflowId };
      }
      return {};
    }),
  };
}
