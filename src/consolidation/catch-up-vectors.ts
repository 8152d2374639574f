import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { indexNoteVectorsWorkflow, type IndexNoteVectorsResult } from '../../workflows/index-note-vectors.ts';
import { noteVectorsId } from '../contracts/workflow-ids.ts';
import { TENANT } from '../contracts/search-attributes.ts';
import { selectRunsMissingVectors, withTenant, type Db } from '../db/index.ts';

/** One run whose claims are being given their vectors again. */
export interface VectorCatchUp {
  runId: string;
  /** Claims of the run without a vector when the catch-up looked. */
  pending: number;
  workflowId: string;
  /** `started`: a new indexing step; `running`: the run's own step was still at work. */
  state: 'started' | 'running';
  handle: WorkflowHandle<typeof indexNoteVectorsWorkflow>;
}

/**
 * Starts the indexing step again for every run of the tenant that left claims without a vector
 * of the workers' model `model` (the step failed, or its worker was gone): the same workflow a run starts after its commit,
 * under the same id, so a step still running is joined rather than doubled. Until it ends,
 * recall finds those notes by full text and marks them `vectorPending`.
 */
export async function catchUpNoteVectors(
  ports: { db: Db; client: Client; taskQueue: string; model: string },
  tenantId: string,
): Promise<VectorCatchUp[]> {
  const runs = await withTenant(ports.db, tenantId, (tx) => selectRunsMissingVectors(tx, { model: ports.model }));
  const started: VectorCatchUp[] = [];
  for (const { runId, pending } of runs) {
    const workflowId = noteVectorsId(tenantId, runId);
    const step = await startStep(ports, tenantId, runId, workflowId);
    started.push({ runId, pending, workflowId, ...step });
  }
  return started;
}

async function startStep(
  ports: { client: Client; taskQueue: string },
  tenantId: string,
  runId: string,
  workflowId: string,
): Promise<Pick<VectorCatchUp, 'state' | 'handle'>> {
  try {
    const handle = await ports.client.workflow.start(indexNoteVectorsWorkflow, {
      workflowId,
      taskQueue: ports.taskQueue,
      args: [{ tenantId, runId }],
      typedSearchAttributes: [{ key: TENANT, value: tenantId }],
    });
    return { state: 'started', handle };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { state: 'running', handle: ports.client.workflow.getHandle(workflowId) };
  }
}

export type { IndexNoteVectorsResult };
