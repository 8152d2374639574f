import { proxyActivities } from '@temporalio/workflow';
import type { ConsolidationActivities, IndexRecordsResult } from '../activities/index.ts';
import { runRecordIndexId } from '../src/contracts/workflow-ids.ts';
import { IndexRunRecordsInput, type ConsolidateInput } from '../src/contracts/workflow-inputs.ts';
import { RECORD_INDEX } from './activity-options.ts';
import { startAbandonedStep, type RunStep } from './run-steps.ts';
import { parseWorkflowInput } from './workflow-input.ts';

const { indexRecords } = proxyActivities<ConsolidationActivities>(RECORD_INDEX);

/** Archive objects one indexRecords call reads at most, so each call stays well inside its timeout. */
export const INDEX_OBJECTS_PER_CALL = 8;

/**
 * What indexing a window did: objects read, records indexed (new, or in place of a row of an
 * older vector form), texts the embedder was asked for.
 */
export type IndexRunRecordsResult = Omit<IndexRecordsResult, 'after'>;

/** Indexes the window's raw records a few objects per call, following the cursor each call returns. */
export async function indexWindowRecords(
  tenantId: string,
  window: ConsolidateInput['window'],
): Promise<IndexRunRecordsResult> {
  const total: IndexRunRecordsResult = { objects: 0, records: 0, replaced: 0, embedded: 0 };
  let after: string | null = null;
  do {
    const indexed: IndexRecordsResult = await indexRecords({
      tenantId,
      window,
      after,
      maxObjects: INDEX_OBJECTS_PER_CALL,
    });
    total.objects += indexed.objects;
    total.records += indexed.records;
    // Recorded histories hold results of workers that counted no replaced rows.
    total.replaced += (indexed.replaced as number | undefined) ?? 0;
    total.embedded += indexed.embedded;
    after = indexed.after;
  } while (after !== null);
  return total;
}

/**
 * A consolidation run's raw-record indexing, as a workflow of its own: only recall needs the
 * record index, so the run does not wait for the embeddings (it may, `vectorWaitSeconds`).
 * Idempotent: a retry, or a second start, indexes only the objects still missing.
 */
export async function indexRunRecordsWorkflow(raw: IndexRunRecordsInput): Promise<IndexRunRecordsResult> {
  const input = parseWorkflowInput(IndexRunRecordsInput, raw);
  return indexWindowRecords(input.tenantId, input.window);
}

/** Starts indexRunRecordsWorkflow for a consolidation run; it outlives the run. */
export function startRunRecordIndex(
  tenantId: string,
  runId: string,
  window: ConsolidateInput['window'],
): Promise<RunStep> {
  return startAbandonedStep(indexRunRecordsWorkflow, runRecordIndexId(tenantId, runId), { tenantId, window });
}
