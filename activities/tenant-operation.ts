import { holdTenantOperation, releaseTenantOperation, type OperationKind } from '../src/db/index.ts';
import { activityWorkflowId, classified, type ActivityDeps } from './deps.ts';

/**
 * Runs `fn` holding the tenant's operation lease for the activity's workflow (its workflow id is
 * the holder, the same across continue-as-new): the first activity of a consolidation, run
 * rollback, erasure or reindex takes it, every later one renews it, and one that meets another
 * holder's live lease fails with TenantBusy before doing anything. This is where the exclusion is
 * enforced, so a workflow started from the Temporal UI is held to it as one started by a command.
 * Called outside an activity (a tool, a test calling the activity function), it takes no lease.
 */
export function leased<I extends { tenantId: string }, R>(
  deps: Pick<ActivityDeps, 'db'>,
  kind: OperationKind,
  fn: (input: I) => Promise<R>,
): (input: I) => Promise<R> {
  return async (input: I) => {
    await holdLease(deps, kind, input.tenantId);
    return fn(input);
  };
}

/** Takes or renews the lease for the activity's workflow; a no-op outside an activity. */
export async function holdLease(deps: Pick<ActivityDeps, 'db'>, kind: OperationKind, tenantId: string): Promise<void> {
  const holder = activityWorkflowId();
  if (holder !== undefined) await holdTenantOperation(deps.db, { tenantId, kind, holder });
}

/** Frees the lease of the activity's workflow, if it still holds it. */
export async function freeLease(deps: Pick<ActivityDeps, 'db'>, tenantId: string): Promise<boolean> {
  const holder = activityWorkflowId();
  return holder === undefined ? false : releaseTenantOperation(deps.db, { tenantId, holder });
}

export function createTenantOperationActivities(deps: ActivityDeps) {
  return {
    /** The last step of a leased operation, also when it failed or was cancelled: frees the tenant for the next. */
    releaseTenantOperation: classified(async (input: { tenantId: string }) => ({
      released: await freeLease(deps, input.tenantId),
    })),
  };
}
