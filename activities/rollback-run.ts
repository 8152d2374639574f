import { publishAuditHead } from '../src/audit/anchor.ts';
import { rollbackRun, type RollbackRunInput } from '../src/rollback/run.ts';
import { classified, type ActivityDeps } from './deps.ts';
import { leased } from './tenant-operation.ts';

export {
  rollbackRunBatchKey,
  type RollbackRunInput as RollbackRunActivityInput,
  type RollbackRunResult,
} from '../src/rollback/run.ts';

export function createRollbackRunActivities(deps: ActivityDeps) {
  return {
    /**
     * Rolls back every note version a run changed, in one audited batch keyed by the request,
     * then publishes the tenant's audit chain head, as every run does. Holds the tenant's
     * operation lease: refused (TenantBusy) while a consolidation, erasure or reindex holds it.
     */
    rollbackRun: classified(
      leased(deps, 'run_rollback', async (input: RollbackRunInput) => {
        const result = await rollbackRun(deps, input);
        await publishAuditHead(deps, input.tenantId);
        return result;
      }),
    ),
  };
}
