import { createCommitActivities } from './commit.ts';
import type { ActivityDeps } from './deps.ts';
import { createPlanActivities } from './plan.ts';
import { createReplayActivities } from './replay-batch.ts';
import { createRollbackActivities } from './rollback.ts';
import { createRollbackRunActivities } from './rollback-run.ts';
import { createErasureActivities } from './erasure.ts';
import { createTenantActivities } from './tenants.ts';
import { createReindexActivities } from './reindex.ts';
import { createRecordIndexActivities } from './record-index.ts';
import { createTenantOperationActivities } from './tenant-operation.ts';

export type { ActivityDeps } from './deps.ts';
export type { ReplayBatchResult } from './replay-batch.ts';
export type { CommitResult, CommittedChange } from './commit.ts';
export type { IndexRecordsInput, IndexRecordsResult } from './record-index.ts';

/** Every activity the worker registers, closed over the injected ports. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPlanActivities(deps),
    ...createReplayActivities(deps),
    ...createCommitActivities(deps),
    ...createRollbackActivities(deps),
    ...createRollbackRunActivities(deps),
    ...createErasureActivities(deps),
    ...createTenantActivities(deps),
    ...createReindexActivities(deps),
    ...createRecordIndexActivities(deps),
    ...createTenantOperationActivities(deps),
  };
}

export type ConsolidationActivities = ReturnType<typeof createActivities>;
