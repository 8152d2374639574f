import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import { BOOKKEEPING } from './activity-options.ts';

/**
 * Marks executions that free the tenant's operation lease (policies/tenant-operations.ts) when
 * they end, fail or are cancelled. Their activities take and renew it whatever the history; the
 * freeing step is new, so histories recorded before it replay without it.
 */
export const OPERATION_LEASE_PATCH = 'tenant-operation-lease';

const { releaseTenantOperation } = proxyActivities<ConsolidationActivities>(BOOKKEEPING);

/**
 * Frees the lease this workflow holds, even once it is cancelled. A failure to free it is not
 * the operation's failure: the lease then expires (OPERATION_LEASE_SECONDS).
 */
export async function freeOperationLease(tenantId: string): Promise<void> {
  await CancellationScope.nonCancellable(() => releaseTenantOperation({ tenantId })).catch(() => undefined);
}
