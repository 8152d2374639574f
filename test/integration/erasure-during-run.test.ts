import type { WorkflowHandle } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { writeBatch } from '../../src/archive/index.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { listNotes, lockTenantAgainstLease, withTenant, type Db } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { awaitErasureAndForget, startErasure } from '../../src/erasure/start.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { objectsMentioning, rowsMentioning } from '../helpers/erasure-search.ts';
import { pipelineConfig, pipelineForThisFile } from '../helpers/pipeline.ts';

// A consolidation run that commits directly (not staged) while an erasure of its tenant holds the
// lease, on the real stack. The run samples and replays the subject's records and stores its
// operations before the erasure takes the lease; its commit then meets the lease. They are ordered
// through the tenant write lock, which every one of those writes takes first and which PostgreSQL
// grants in the order it was asked for: the test holds it, lets the run's write queue on it, then
// the erasure's first step, and lets go.

const { config, schema } = pipelineConfig('erun');
const SUBJECT = 'u-alice';
const pipeline = pipelineForThisFile(config, schema);

const tag = () => randomBytes(3).toString('hex');

function records(tenantId: string): RawRecordInput[] {
  return demoRecords()
    .filter((r) => r.tenantId === 'acme')
    .map((r) => ({ ...r, tenantId }));
}

/** Sessions waiting for the tenant's write lock (the advisory key of lockTenantWrites in src/db). */
async function waitingForTenantLock(db: Db, tenantId: string): Promise<number> {
  const { rows } = await unscoped(db).query(
    `WITH k AS (SELECT hashtextextended('nocturne.note-writes:' || $1, 0) AS v)
     SELECT count(*)::int AS n FROM pg_locks l, k
      WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 1
        AND l.classid::bigint = ((k.v >> 32) & 4294967295) AND l.objid::bigint = (k.v & 4294967295)`,
    [tenantId],
  );
  return (rows[0] as { n: number }).n;
}

const POLL = { timeout: 30_000, interval: 100 };

async function pendingActivities(run: WorkflowHandle): Promise<string[]> {
  const pending = (await run.describe()).raw.pendingActivities ?? [];
  return pending.map((a) => a.activityType?.name ?? '?');
}

/** Holds the tenant write lock in a transaction of its own until `release` is called. */
function holdTenantLock(db: Db, tenantId: string): Promise<{ release: () => void; done: Promise<void> }> {
  return new Promise((held) => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const done = withTenant(db, tenantId, async (tx) => {
      // Takes the tenant write lock (no lease is held yet, so the check passes).
      await lockTenantAgainstLease(tx, { tenantId });
      held({ release, done });
      await gate;
    });
  });
}

describe('a direct consolidation commit while an erasure holds the tenant lease', () => {
  it('commits nothing (TenantLocked), and the erasure scrubs what the run replayed and verifies clean', async () => {
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
    // The erasure's first step queues behind it: the replay stores its operations, the erasure
    // takes the lease, and only then does the run's commit look.
    const erasure = await startErasure(client, db, { tenantId, userId: SUBJECT, taskQueue: config.temporal.taskQueue });
    await expect.poll(() => waitingForTenantLock(db, tenantId), POLL).toBe(2);
    held.release();
    await held.done;

    const failure = await run.result().catch((e: unknown) => e as Error);
    const activity = (failure as { cause?: { activityType?: string; cause?: { type?: string } } }).cause;
    expect([activity?.activityType, activity?.cause?.type]).toEqual(['commitBatch', 'TenantLocked']);
    const { result } = await awaitErasureAndForget(client, erasure);
    expect(result?.scan).toMatchObject({ clean: true, archive: [], database: [] });
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
