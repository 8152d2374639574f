import { ParentClosePolicy, condition, proxyActivities, startChild } from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import { noteVectorsId } from '../src/contracts/workflow-ids.ts';
import { IndexNoteVectorsInput } from '../src/contracts/workflow-inputs.ts';
import { NOTE_VECTORS } from './activity-options.ts';
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
export interface RunVectors {
  /** The indexing step's workflow id, to follow it in the UI. */
  workflowId: string;
  /** Every claim of the run had its vector when the run finished. */
  complete: boolean;
  /** Why the step failed, when it failed within the wait (it may be started again). */
  error?: string;
}

/** The indexing step of one run, started; `wait` reports on it. */
export interface RunVectorsStep {
  wait(seconds: number): Promise<RunVectors>;
}

/**
 * Starts indexNoteVectorsWorkflow for a consolidation run once its notes are committed. It is
 * abandoned when the run closes, so it outlives the run; the run waits for it at most as long
 * as it asks to (`wait`).
 */
export async function startRunVectors(tenantId: string, runId: string): Promise<RunVectorsStep> {
  const workflowId = noteVectorsId(tenantId, runId);
  const child = await startChild(indexNoteVectorsWorkflow, {
    workflowId,
    args: [{ tenantId, runId }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
  });
  let settled = false;
  let error: string | undefined;
  void child
    .result()
    .catch((e: unknown) => {
      const cause = (e as { cause?: unknown }).cause;
      error = cause instanceof Error ? cause.message : e instanceof Error ? e.message : String(e);
    })
    .finally(() => {
      settled = true;
    });
  return {
    async wait(seconds) {
      if (seconds > 0) await condition(() => settled, seconds * 1000);
      return { workflowId, complete: settled && error === undefined, ...(error !== undefined ? { error } : {}) };
    },
  };
}
