import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolidationId } from '../../src/contracts/workflow-ids.ts';
import { TENANT } from '../../src/contracts/search-attributes.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { temporalClient } from '../helpers/temporal.ts';
import type { Client } from '@temporalio/client';

// `nocturne run` starts today's consolidation of a tenant; one still running under another id
// (yesterday's, a backfill) must stop it, or two runs would commit for the tenant at once.
// `nocturne rollback run` waits the same way: a running run would commit beside the rollback.
// A task queue no worker polls keeps the other run running for as long as the test needs it.

const suffix = randomBytes(3).toString('hex');
const idle = `nobody-polls-${suffix}`;
let client: Client;
let close: () => Promise<void>;
const started: string[] = [];

beforeAll(async () => ({ client, close } = await temporalClient()));
afterAll(async () => {
  for (const id of started)
    await client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  await close?.();
});

async function nocturneRun(tenantId: string) {
  return nocturne(['run', '--tenant', tenantId, '--json']);
}

async function nocturne(args: string[]) {
  const env = { ...process.env, ...stackEnv(), NOCTURNE_TASK_QUEUE: idle };
  return promisify(execFile)(process.execPath, ['bin/nocturne.mjs', ...args], {
    env,
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

async function startOther(tenantId: string, label: string, attributes: boolean) {
  const workflowId = consolidationId(tenantId, label);
  await client.workflow.start('consolidateTenantWorkflow', {
    taskQueue: idle,
    workflowId,
    args: [{ tenantId, trigger: 'backfill' }],
    ...(attributes ? { typedSearchAttributes: [{ key: TENANT, value: tenantId }] } : {}),
  });
  started.push(workflowId);
  return workflowId;
}

/** Visibility is eventually consistent: wait until the list shows the run. */
async function visible(workflowId: string) {
  for (let i = 0; i < 50; i++) {
    for await (const _ of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${workflowId} never became visible`);
}

describe('nocturne run with a consolidation of the tenant already running', () => {
  it('refuses, naming the running run, when it was started under another day', async () => {
    const tenantId = `excl-${suffix}-a`;
    const other = await startOther(tenantId, '2026-11-30', false);
    await visible(other);
    const r = await nocturneRun(tenantId);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`a consolidation of ${tenantId} is already running (${other})`);
  });

  it('refuses when the running run is found only by its tenant attribute (an id of another form)', async () => {
    const tenantId = `excl-${suffix}-b`;
    const handle = await client.workflow.start('consolidateTenantWorkflow', {
      taskQueue: idle,
      workflowId: `backfill-${suffix}`,
      args: [{ tenantId, trigger: 'backfill' }],
      typedSearchAttributes: [{ key: TENANT, value: tenantId }],
    });
    const other = handle.workflowId;
    started.push(other);
    await visible(other);
    const r = await nocturneRun(tenantId);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`(${other})`);
  });

  it('starts today’s run when no other run of the tenant is running', async () => {
    const tenantId = `excl-${suffix}-c`;
    await startOther(`excl-${suffix}-cc`, '2026-11-30', true);
    const r = await nocturneRun(tenantId);
    expect(r.code).toBe(0);
    const { workflowId } = JSON.parse(r.stdout) as { workflowId: string };
    started.push(workflowId);
    expect(workflowId.startsWith(consolidationId(tenantId, ''))).toBe(true);
  });
});

describe('nocturne rollback run with a consolidation of the tenant running', () => {
  const rollbackRun = (runId: string) =>
    nocturne(['rollback', 'run', '--run', runId, '--reason', 'bad run', '--operator', 'ops@it', '--json']);

  it('refuses to roll back the run while it is still running, naming it, and starts nothing', async () => {
    const tenantId = `excl-${suffix}-d`;
    const other = await startOther(tenantId, '2026-11-29', true);
    await visible(other);
    const r = await rollbackRun(`${other}/first-execution`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`a consolidation of ${tenantId} is running (${other})`);
    const rollbacks = client.workflow.list({ query: `WorkflowId STARTS_WITH 'rollback-run/${tenantId}/'` });
    for await (const wf of rollbacks) expect.unreachable(`started ${wf.workflowId}`);
  });

  it('starts the rollback when no consolidation of the tenant runs', async () => {
    const tenantId = `excl-${suffix}-e`;
    const r = await rollbackRun(`${consolidationId(tenantId, '2026-11-28')}/first-execution`);
    expect(r.code).toBe(0);
    const { workflowId } = JSON.parse(r.stdout) as { workflowId: string };
    started.push(workflowId);
    expect(workflowId.startsWith(`rollback-run/${tenantId}/`)).toBe(true);
  });
});
