import { proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import { noteVectorsId } from '../src/contracts/workflow-ids.ts';
import { IndexNoteVectorsInput } from '../src/contracts/workflow-inputs.ts';
import { NOTE_VECTORS } from './activity-options.ts';
import { startAbandonedStep, type RunStep, type RunStepReport } from './run-steps.ts';
import { parseWorkflowInput } from './workflow-input.ts';

const { reindexBatch } = proxyActivities<ConsolidationActivities>(NOTE_VECTORS);

export interface IndexNoteVectorsResult {
  embedded: number;
  embedder: string;
}

/**
 * Embeds the claims a consolidation run committed that have no vector yet, through the tenant's
 * embedding cache and lane. Until it finishes, recall finds those notes by full text and marks
 * them `vectorPending`. Idempotent: a retry, or a second start after a failure, embeds only what
 * is still missing.
 */
export async function indexNoteVectorsWorkflow(raw: IndexNoteVectorsInput): Promise<IndexNoteVectorsResult> {
  const input = parseWorkflowInput(IndexNoteVectorsInput, raw);
  // reindexBatch embeds every version of the run without a vector, whatever the batch number.
  return reindexBatch({ runId: input.runId, tenantId: input.tenantId, batchNo: 0 });
}

/** What a run reports about its claims' vectors when it finishes. */
export type RunVectors = RunStepReport;

/**
 * Starts indexNoteVectorsWorkflow for a consolidation run once its notes are committed. It is
 * abandoned when the run closes, so it outlives the run; the run waits for it at most as long
 * as it asks to.
 */
export function startRunVectors(tenantId: string, runId: string): Promise<RunStep> {
  return startAbandonedStep(indexNoteVectorsWorkflow, noteVectorsId(tenantId, runId), { tenantId, runId });
}
