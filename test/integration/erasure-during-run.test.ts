import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { writeBatch } from '../../src/archive/index.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { getTenantOperation, listNotes } from '../../src/db/index.ts';
import { awaitErasureAndForget, startErasure } from '../../src/erasure/start.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { objectsMentioning, rowsMentioning } from '../helpers/erasure-search.ts';
import { pipelineConfig, pipelineForThisFile } from '../helpers/pipeline.ts';
import {
  expireOperationLease,
  holdTenantLock,
  pendingActivities,
  POLL,
  waitingForTenantLock,
} from '../helpers/tenant-write-lock.ts';

// A consolidation run that commits directly (not staged) while an erasure of its tenant holds the
// lease, on the real stack. An erasure cannot start beside a run that holds the tenant's
// operation lease (test/integration/tenant-operations.test.ts); here the run stalled long enough
// for its lease to expire (as when its workers are gone for 30 minutes), and the erasure took it
// over. The run samples and replays the subject's records and stores its operations before the
// erasure takes its write fence; its commit then meets the lease. They are ordered through the
// tenant write lock, which every one of those writes takes first and which PostgreSQL grants in
// the order it was asked for: the test holds it, lets the run's write queue on it, then the
// erasure's first step, and lets go.

const { config, schema } = pipelineConfig('erun');
const SUBJECT = 'u-alice';
const pipeline = pipelineForThisFile(config, schema);

const tag = () => randomBytes(3).toString('hex');

function records(tenantId: string): RawRecordInput[] {
  return demoRecords()
    .filter((r) => r.tenantId === 'acme')
    .map((r) => ({ ...r, tenantId }));
}

describe('a direct consolidation commit while an erasure holds the tenant lease', () => {
  it('commits nothing (TenantBusy, naming the erasure), and the erasure scrubs what the run replayed and verifies clean', async () => {
    const { db, archive, client } = pipeline;
    const tenantId = `erun-${tag()}`;
    const rs = records(tenantId);
    const subjectIds = rs.filter((r) => r.userId === SUBJECT).map((r) => r.id);
    const words = rs
      .filter((r) => r.userId === SUBJECT && r.source === 'user' && (r.text ?? '').length >= 12)
      .map((r) => r.text ?? '');
    expect(subjectIds.length).toBeGreaterThan(0);
    await writeBatch(archive, { tenantId, producer: 'it', records: rs });

    // The run's writes (its plan, its replay, its commit) each wait for the lock the test holds.
    const first = await holdTenantLock(db, tenantId);
    const run = await client.workflow.start('consolidateTenantWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `consolidate/${tenantId}/it-${tag()}`,
      args: [{ tenantId, trigger: 'manual', mode: 'active', seed: 3 }],
    });
    await expect.poll(() => waitingForTenantLock(db, tenantId), POLL).toBe(1);
    // Queue behind the plan's write, so the lock is back in the test's hands before the replay's.
    const second = holdTenantLock(db, tenantId);
    await expect.poll(() => waitingForTenantLock(db, tenantId), POLL).toBe(2);
    first.release();
    await first.done;
    const held = await second;
    // The run read the subject's records and waits to store what it replayed.
    await expect.poll(() => waitingForTenantLock(db, tenantId), POLL).toBe(1);
    expect(await pendingActivities(run)).toEqual(['replayBatch']);
    // The run's operation lease lapses; the erasure's first step takes it over.
    await expireOperationLease(db, tenantId);
    // The erasure's first step queues behind it: the replay stores its operations, the erasure
    // takes the lease, and only then does the run's commit look.
    const erasure = await startErasure(client, db, { tenantId, userId: SUBJECT, taskQueue: config.temporal.taskQueue });
    await expect.poll(() => waitingForTenantLock(db, tenantId), POLL).toBe(2);
    held.release();
    await held.done;

    const failure = await run.result().catch((e: unknown) => e as Error);
    const activity = (failure as { cause?: { activityType?: string; cause?: { type?: string; message?: string } } })
      .cause;
    // The commit's renewal of the run's lease meets the erasure's: it names the erasure.
    expect([activity?.activityType, activity?.cause?.type]).toEqual(['commitBatch', 'TenantBusy']);
    expect(activity?.cause?.message).toContain(erasure.workflowId);
    const { result } = await awaitErasureAndForget(client, erasure);
    expect(result?.scan).toMatchObject({ clean: true, archive: [], database: [] });
    expect(await getTenantOperation(db, { tenantId })).toBeUndefined();
    // Teeth: the run had stored operations citing the subject's records; the erasure scrubbed them.
    expect(result?.scrubbed.runWorkRowsDeleted).toBeGreaterThan(0);
    expect(result?.scrubbed.runEpisodesDeleted).toBeGreaterThan(0);

    expect((await listNotes(db, { tenantId, limit: 100 })).notes).toEqual([]);
    for (const needle of [SUBJECT, ...subjectIds, ...words]) {
      expect(await rowsMentioning(db, schema, tenantId, needle), needle).toEqual([]);
      expect(await objectsMentioning(archive, tenantId, needle), needle).toEqual([]);
    }

    // The tenant is free again: the next run commits, from the other users' records only.
    const next = await client.workflow.execute('consolidateTenantWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `consolidate/${tenantId}/it-${tag()}`,
      args: [{ tenantId, trigger: 'manual', mode: 'active', seed: 3 }],
    });
    expect((next as ConsolidateResult).counts.committed).toBeGreaterThan(0);
    const notes = (await listNotes(db, { tenantId, limit: 100 })).notes;
    expect(notes.flatMap((n) => n.evidence.filter((e) => subjectIds.includes(e.recordId)))).toEqual([]);
  }, 240_000);
});
