import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { STACK } from '../../src/stack/endpoints.ts';
import { WORKFLOWS_PATH } from '../../src/worker.ts';

const address = `${STACK.host}:${STACK.temporal.port}`;

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles workflows/index.ts once per test file (a bad import in workflow code fails here). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  return bundle;
}

export async function temporalClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: STACK.temporal.namespace }), close: () => connection.close() };
}

/** Runs `fn` while a worker with the given activities polls a fresh task queue. */
export async function withWorker<T>(activities: object, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `test-${randomUUID()}`;
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities,
      namespace: STACK.temporal.namespace,
    });
    return await worker.runUntil(fn(taskQueue));
  } finally {
    await connection.close();
  }
}

/** The failure a workflow ended with: the run must reject with WorkflowFailedError. */
export async function workflowFailure(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause as ApplicationFailure;
}

export const uniqueId = (prefix: string): string => `${prefix}-${randomUUID()}`;

const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error(message: string, meta?: Record<string, unknown>) {
    process.stderr.write(`${message} ${meta ? JSON.stringify(meta) : ''}\n`);
  },
};

/**
 * With RECORD_HISTORIES=1, saves a finished workflow's history under test/replay/histories/
 * so the replay suite checks every later change of workflow code against it.
 */
export async function maybeRecordHistory(client: Client, workflowId: string, name: string): Promise<void> {
  if (process.env['RECORD_HISTORIES'] !== '1') return;
  const { writeFile } = await import('node:fs/promises');
  const { historyToJSON } = await import('@temporalio/common/lib/proto-utils.js');
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await writeFile(new URL(`../replay/histories/${name}.json`, import.meta.url), `${historyToJSON(history)}\n`);
}
