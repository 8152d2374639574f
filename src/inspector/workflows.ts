import type { Client } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { ulid } from 'ulid';
import { rollbackNoteId } from '../contracts/workflow-ids.ts';
import type { RollbackResult } from '../rollback/note.ts';

/** What the page knows of a rollback it started. */
export type RollbackOutcome =
  | { workflowId: string; status: 'completed'; result: RollbackResult }
  | { workflowId: string; status: 'failed'; failure: string }
  | { workflowId: string; status: 'running' | 'not_found' | string };

/** Starts `rollbackNoteWorkflow` and reads its outcome; the inspector's only way to change a note. */
export interface RollbackLauncher {
  /** Starts the workflow with an input already parsed by its schema; returns the workflow id. */
  start(tenantId: string, noteId: string, input: Record<string, unknown>): Promise<string>;
  /** The outcome, waiting up to `waitMs` for a running workflow to close. */
  outcome(workflowId: string, waitMs: number): Promise<RollbackOutcome>;
}

const POLL_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The launcher over a Temporal client, asked for on first use (the inspector's pages read the
 * store only, so `nocturne serve` does not need Temporal until a button is pressed). Waiting
 * polls `describe` rather than holding a long-poll on the result that could outlive the request.
 */
export function temporalRollbackLauncher(opts: { client: () => Promise<Client>; taskQueue: string }): RollbackLauncher {
  return {
    async start(tenantId, noteId, input) {
      const workflowId = rollbackNoteId(tenantId, noteId, ulid());
      const client = await opts.client();
      await client.workflow.start('rollbackNoteWorkflow', { taskQueue: opts.taskQueue, workflowId, args: [input] });
      return workflowId;
    },
    async outcome(workflowId, waitMs) {
      const handle = (await opts.client()).workflow.getHandle(workflowId);
      const deadline = Date.now() + waitMs;
      for (;;) {
        let status: string;
        try {
          status = (await handle.describe()).status.name;
        } catch (error) {
          if ((error as Error).name === 'WorkflowNotFoundError') return { workflowId, status: 'not_found' };
          throw error;
        }
        if (status === 'COMPLETED') return { workflowId, status: 'completed', result: await handle.result() };
        if (status === 'FAILED') return { workflowId, status: 'failed', failure: await failureOf(handle) };
        if (status !== 'RUNNING' || Date.now() >= deadline) return { workflowId, status: status.toLowerCase() };
        await sleep(POLL_MS);
      }
    },
  };
}

async function failureOf(handle: { result(): Promise<unknown> }): Promise<string> {
  try {
    await handle.result();
    return 'failed';
  } catch (error) {
    if (error instanceof WorkflowFailedError) return error.cause?.message ?? error.message;
    return error instanceof Error ? error.message : String(error);
  }
}
