import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import { STATUS } from '../src/contracts/search-attributes.ts';
import { BOOKKEEPING } from './activity-options.ts';
import { approveUpdate, rejectUpdate, type ApprovalInput, type ConsolidateProgress } from './consolidate-messages.ts';

const bookkeeping = proxyActivities<ConsolidationActivities>(BOOKKEEPING);

type Decision = { approve: boolean; by: ApprovalInput };

/** Handlers exist from the start so the UI shows them; they refuse until the run awaits approval. */
export function registerApproval(progress: ConsolidateProgress): { decision?: Decision } {
  const box: { decision?: Decision } = {};
  const validator = (by: ApprovalInput) => {
    if (typeof by?.operator !== 'string' || by.operator.trim() === '')
      throw new Error('operator: required (who decides)');
    if (progress.phase !== 'awaiting_approval') throw new Error(`run is ${progress.phase}, not awaiting approval`);
    if (box.decision) throw new Error('run already decided');
  };
  setHandler(
    approveUpdate,
    (by) => {
      box.decision = { approve: true, by };
      return { accepted: true as const };
    },
    { validator },
  );
  setHandler(
    rejectUpdate,
    (by) => {
      box.decision = { approve: false, by };
      return { accepted: true as const };
    },
    { validator },
  );
  return box;
}

/** Waits for an operator's decision; no decision before the timeout means reject. */
export async function awaitApproval(
  box: { decision?: Decision },
  runId: string,
  tenantId: string,
  timeoutSeconds: number,
): Promise<boolean> {
  upsertSearchAttributes([{ key: STATUS, value: 'awaiting_approval' }]);
  await condition(() => box.decision !== undefined, timeoutSeconds * 1000);
  const decision = box.decision;
  const approve = decision?.approve ?? false;
  const actor = decision?.by.operator ?? 'approval-timeout';
  const reason = decision?.by.reason ?? (decision ? '' : `no decision within ${timeoutSeconds}s`);
  await bookkeeping.resolveStaged({ runId, tenantId, decision: approve ? 'approve' : 'reject', actor, reason });
  return approve;
}
