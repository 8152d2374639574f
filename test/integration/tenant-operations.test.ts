import { WorkflowFailedError, type Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RollbackRunResult } from '../../activities/rollback-run.ts';
import { writeBatch } from '../../src/archive/index.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { consolidationId, rollbackRunId } from '../../src/contracts/workflow-ids.ts';
import {
  getRun,
  getTenantOperation,
  holdTenantOperation,
  listNotes,
  selectErasureEpoch,
  withTenant,
  type Db,
} from '../../src/db/index.ts';
import { awaitErasureAndForget, startErasure } from '../../src/erasure/start.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import type { ReindexResult } from '../../workflows/reindex.ts';
import { objectsMentioning } from '../helpers/erasure-search.ts';
import { pipelineConfig, pipelineForThisFile } from '../helpers/pipeline.ts';
import {
  expireOperationLease,
  holdTenantLock,
  pendingActivities,
  POLL,
  waitingForTenantLock,
} from '../helpers/tenant-write-lock.ts';

// One operation lease per tenant (docs/SECURITY.md, "One operation per tenant"), on the real
// stack: a consolidation is kept in its plan (the test holds the tenant write lock its plan
// writes under) while it holds the lease; a run rollback, an erasure and a reindex of the tenant
// are started directly with the Temporal client, as the UI starts them, without any command's
// check. Each must fail at once naming the run and change nothing; after the run each succeeds.

const { config, schema } = pipelineConfig('tops');
const pipeline = pipelineForThisFile(config, schema);
const SUBJECT = 'u-alice';
const tag = () => randomBytes(3).toString('hex');
const taskQueue = config.temporal.taskQueue;

function records(tenantId: string): RawRecordInput[] {
  return demoRecords()
    .filter((r) => r.tenantId === 'acme')
    .map((r) => ({ ...r, tenantId }));
}

function consolidate(client: Client, tenantId: string) {
  return client.workflow.start('consolidateTenantWorkflow', {
    taskQueue,
    workflowId: consolidationId(tenantId, `it-${tag()}`),
    args: [{ tenantId, trigger: 'manual', mode: 'active', seed: 3 }],
  });
}

function rollbackRun(client: Client, tenantId: string, runId: string) {
  return client.workflow.execute('rollbackRunWorkflow', {
    taskQueue,
    workflowId: rollbackRunId(tenantId, tag()),
    args: [{ runId, tenantId, reason: 'bad run', operator: 'ops@example.com' }],
  }) as Promise<RollbackRunResult>;
}

function reindex(client: Client, tenantId: string) {
  return client.workflow.execute('reindexWorkflow', {
    taskQueue,
    workflowId: `reindex/${tenantId}/${tag()}`,
    args: [{ tenantId, reason: 'same model, rebuilt' }],
  }) as Promise<ReindexResult>;
}

/** The workflow's failure: its activity's ApplicationFailure (type, message, retryability). */
async function refusal(run: Promise<unknown>) {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const activity = (error as WorkflowFailedError).cause as { activityType?: string; cause?: unknown } | undefined;
  const cause = activity?.cause as { type?: string; message?: string; nonRetryable?: boolean } | undefined;
  return {
    activity: activity?.activityType,
    type: cause?.type,
    message: cause?.message,
    nonRetryable: cause?.nonRetryable,
  };
}

const notesState = async (db: Db, tenantId: string) =>
  (await listNotes(db, { tenantId, limit: 200 })).notes.map((n) => `${n.noteId}@${n.version}:${n.status}`).sort();
const epoch = (db: Db, tenantId: string) => withTenant(db, tenantId, (tx) => selectErasureEpoch(tx));

describe('one operation per tenant, whoever starts it', () => {
  it('refuses a run rollback, an erasure and a reindex beside a running consolidation, naming it, and runs each after', async () => {
    const { db, archive, client } = pipeline;
    const tenantId = `tops-${tag()}`;
    await writeBatch(archive, { tenantId, producer: 'it', records: records(tenantId) });
    const first = (await (await consolidate(client, tenantId)).result()) as ConsolidateResult;
    expect(first.counts.committed).toBeGreaterThan(0);
    expect(await getTenantOperation(db, { tenantId })).toBeUndefined();

    // The second run takes the lease in its plan and waits there for the write lock the test holds.
    const held = await holdTenantLock(db, tenantId);
    const running = await consolidate(client, tenantId);
    await expect.poll(() => waitingForTenantLock(db, tenantId), POLL).toBe(1);
    expect(await pendingActivities(running)).toEqual(['planRun']);
    expect(await getTenantOperation(db, { tenantId })).toMatchObject({
      kind: 'consolidation',
      holder: running.workflowId,
    });
    const before = await notesState(db, tenantId);

    try {
      const erasure = await startErasure(client, db, { tenantId, userId: SUBJECT, taskQueue });
      const [rolledBack, erased, reindexed] = await Promise.all([
        refusal(rollbackRun(client, tenantId, first.runId)),
        refusal(client.workflow.getHandle(erasure.workflowId).result()),
        refusal(reindex(client, tenantId)),
      ]);
      expect(rolledBack).toMatchObject({ activity: 'rollbackRun', type: 'TenantBusy', nonRetryable: true });
      expect(erased).toMatchObject({ activity: 'prepareErasure', type: 'TenantBusy', nonRetryable: true });
      expect(reindexed).toMatchObject({ activity: 'beginReindex', type: 'TenantBusy', nonRetryable: true });
      for (const r of [rolledBack, erased, reindexed])
        expect(r.message).toContain(`consolidation ${running.workflowId}`);
      // Nothing happened: the first run is not rolled back, no note changed, the erasure took no
      // fence (no epoch moved, so the run is not fenced) and the subject's records are still there,
      // and the refused workflows did not free the run's lease.
      expect((await getRun(db, { tenantId, runId: first.runId }))?.status).toBe('completed');
      expect(await notesState(db, tenantId)).toEqual(before);
      expect(await epoch(db, tenantId)).toBe(0);
      expect((await objectsMentioning(archive, tenantId, SUBJECT)).length).toBeGreaterThan(0);
      expect(await getTenantOperation(db, { tenantId })).toMatchObject({ holder: running.workflowId });
    } finally {
      // Lets the run go on even when an assertion failed, so the worker is not left blocked.
      held.release();
      await held.done;
    }
    const second = (await running.result()) as ConsolidateResult;
    expect(second.status).toBe('completed');
    expect(await getTenantOperation(db, { tenantId })).toBeUndefined();

    // Once the run ended, each goes through, one after the other.
    const rollback = await rollbackRun(client, tenantId, first.runId);
    expect(rollback.changes.length).toBeGreaterThan(0);
    expect((await getRun(db, { tenantId, runId: first.runId }))?.status).toBe('rolled_back');
    const rebuilt = await reindex(client, tenantId);
    expect(rebuilt.pages).toBeGreaterThan(0);
    const again = await startErasure(client, db, { tenantId, userId: SUBJECT, taskQueue });
    const { result } = await awaitErasureAndForget(client, again);
    expect(result?.scan).toMatchObject({ clean: true, archive: [], database: [] });
    expect(await objectsMentioning(archive, tenantId, SUBJECT)).toEqual([]);
    expect(await getTenantOperation(db, { tenantId })).toBeUndefined();
  }, 480_000);

  it('takes over the expired lease of a holder that died, and refuses while it was live', async () => {
    const { db, archive, client } = pipeline;
    const tenantId = `tops-${tag()}`;
    await writeBatch(archive, { tenantId, producer: 'it', records: records(tenantId) });
    const run = (await (await consolidate(client, tenantId)).result()) as ConsolidateResult;
    // A consolidation whose workflow was terminated mid-run: nobody will free its lease.
    const dead = consolidationId(tenantId, 'terminated');
    await holdTenantOperation(db, { tenantId, kind: 'consolidation', holder: dead });

    const refused = await refusal(rollbackRun(client, tenantId, run.runId));
    expect(refused).toMatchObject({ type: 'TenantBusy', nonRetryable: true });
    expect(refused.message).toContain(`consolidation ${dead}`);
    expect((await getRun(db, { tenantId, runId: run.runId }))?.status).toBe('completed');

    await expireOperationLease(db, tenantId);
    const rollback = await rollbackRun(client, tenantId, run.runId);
    expect(rollback.changes.length).toBeGreaterThan(0);
    expect((await getRun(db, { tenantId, runId: run.runId }))?.status).toBe('rolled_back');
    // The rollback freed what it took over; the dead holder has nothing left to free.
    expect(await getTenantOperation(db, { tenantId })).toBeUndefined();
  }, 240_000);
});
