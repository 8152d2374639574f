// Negative control for the replay suite: the consolidation workflow with one command
// sequence change (reindex before commit). Replaying real histories against it must fail.
import { proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../../../activities/index.ts';

const a = proxyActivities<ConsolidationActivities>({ startToCloseTimeout: '1 minute' });

export async function consolidateTenantWorkflow(input: { tenantId: string }): Promise<void> {
  const runId = 'altered';
  const plan = await a.planRun({
    runId,
    workflowId: runId,
    tenantId: input.tenantId,
    window: {},
    budget: { maxEpisodes: 1, maxLlmTokens: 0, maxNoteChanges: 1, deadlineSeconds: 60 },
    trigger: 'manual',
    mode: 'active',
    seed: 1,
    now: '2026-01-01T00:00:00Z',
  });
  for (let batchNo = 0; batchNo < plan.batches; batchNo++) {
    await a.reindexBatch({ runId, tenantId: input.tenantId, batchNo });
    await a.replayBatch({ runId, tenantId: input.tenantId, batchNo, llmTokensLeft: 0 });
  }
}
