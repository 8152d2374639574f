import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { TenantId } from '../src/contracts/ids.ts';
import { classified, heartbeat, type ActivityDeps } from './deps.ts';

/** The archive root under which every tenant's partitions live (`raw/tenant=<t>/date=<d>/…`). */
const RAW_PREFIX = 'raw/';
const TENANT_DATE = /^raw\/tenant=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\//;

export interface ListActiveTenantsInput {
  /** Only tenants with an archive partition dated on or after this UTC day (YYYY-MM-DD). */
  since?: string;
  /** Tenants sort by id; the page starts after this one (the cursor a continued nightly run carries). */
  after?: string;
  /** At most this many tenants per page. */
  limit: number;
}

export interface ListActiveTenantsResult {
  tenants: string[];
  /** More active tenants follow the last one in this page. */
  more: boolean;
}

export interface FindRunningInput {
  tenantId: string;
}

export interface FindRunningResult {
  /** Workflow id of a consolidation of this tenant that is running now, if any. */
  running?: string;
}

/**
 * Tenant discovery and the cross-trigger exclusion check.
 *
 * Active tenants come from the archive, not the note store: raw records are the source of
 * truth, a consolidation only has work where records exist, and the note tables are behind
 * forced row-level security (an unscoped read sees no tenant at all, by design).
 */
export function createTenantActivities(deps: ActivityDeps, opts: { client?: () => Client } = {}) {
  return {
    /** Distinct tenants with archive partitions (dated on or after `since`), sorted, one page. */
    listActiveTenants: classified(async (input: ListActiveTenantsInput): Promise<ListActiveTenantsResult> => {
      const found = new Set<string>();
      let seen = 0;
      for await (const info of deps.archive.list(RAW_PREFIX)) {
        if (++seen % 1000 === 0) heartbeat({ seen });
        const m = TENANT_DATE.exec(info.key);
        if (!m) continue;
        const [, tenant = '', date = ''] = m;
        if (input.since && date < input.since) continue;
        if (input.after !== undefined && tenant <= input.after) continue;
        if (!TenantId.safeParse(tenant).success) continue;
        found.add(tenant);
      }
      const sorted = [...found].sort();
      return { tenants: sorted.slice(0, input.limit), more: sorted.length > input.limit };
    }),

    /**
     * Asks Temporal's visibility store whether a consolidation of the tenant is running, whatever
     * started it (nightly, conflict monitor, `nocturne run`, demo). Visibility lags a start by
     * milliseconds, so this is the second of two guards; the first is the per-day child id (see
     * workflows/nightly-consolidation.ts).
     */
    findRunningConsolidation: classified(async (input: FindRunningInput): Promise<FindRunningResult> => {
      const tenantId = TenantId.parse(input.tenantId);
      const client = opts.client?.() ?? Context.current().client;
      const query = `WorkflowType = 'consolidateTenantWorkflow' AND ExecutionStatus = 'Running' AND NocturneTenant = '${tenantId}'`;
      for await (const wf of client.workflow.list({ query, pageSize: 1 })) {
        return { running: wf.workflowId };
      }
      return {};
    }),
  };
}

export type TenantActivities = ReturnType<typeof createTenantActivities>;
