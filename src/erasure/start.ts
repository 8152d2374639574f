import type { Client } from '@temporalio/client';
import type { EraseSubjectResult } from '../../workflows/erase-subject.ts';
import { eraseSubjectId } from '../contracts/workflow-ids.ts';
import { insertErasureRequest, type Db } from '../db/index.ts';

export interface ErasureStart {
  tenantId: string;
  userId: string;
  taskQueue: string;
}

export interface ErasureRun {
  workflowId: string;
  runId: string;
  /** The workflow's result, when the caller waited for it. */
  result?: EraseSubjectResult;
  /** Whether the finished erasure's history was deleted from Temporal. */
  historyDeleted?: boolean;
}

/**
 * Starts an erasure the only way that keeps the subject out of Temporal: the user id goes to
 * the note store under a random handle and the workflow gets `{ tenantId, handle }`.
 */
export async function startErasure(client: Client, db: Db, p: ErasureStart): Promise<ErasureRun> {
  const handle = await insertErasureRequest(db, { tenantId: p.tenantId, userId: p.userId });
  const workflowId = eraseSubjectId(p.tenantId, handle);
  const started = await client.workflow.start('eraseSubjectWorkflow', {
    taskQueue: p.taskQueue,
    workflowId,
    args: [{ tenantId: p.tenantId, handle }],
  });
  return { workflowId, runId: started.firstExecutionRunId };
}

/**
 * Waits for an erasure and, when it succeeded, deletes its execution (history and visibility
 * record) with the workflow service's DeleteWorkflowExecution. The run id is named: a closed
 * execution is not "current", and the server deletes asynchronously. A failed erasure keeps its
 * history (it names only the handle) for diagnosis and a re-run.
 */
export async function awaitErasureAndForget(client: Client, run: ErasureRun): Promise<ErasureRun> {
  const handle = client.workflow.getHandle(run.workflowId, run.runId);
  const result = (await handle.result()) as EraseSubjectResult;
  await client.workflowService.deleteWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
  });
  return { ...run, result, historyDeleted: true };
}
