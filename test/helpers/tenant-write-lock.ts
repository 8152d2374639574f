import type { WorkflowHandle } from '@temporalio/client';
import { lockTenantAgainstLease, withTenant, type Db } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';

// Lining up a workflow's steps on the real stack: every store write of a run takes the tenant
// write lock first, and PostgreSQL grants it in the order it was asked for, so a test that holds
// it keeps the run at its next write for as long as it needs, and sees who queues behind.

/** Sessions waiting for the tenant's write lock (the advisory key of lockTenantWrites in src/db). */
export async function waitingForTenantLock(db: Db, tenantId: string): Promise<number> {
  const { rows } = await unscoped(db).query(
    `WITH k AS (SELECT hashtextextended('nocturne.note-writes:' || $1, 0) AS v)
     SELECT count(*)::int AS n FROM pg_locks l, k
      WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 1
        AND l.classid::bigint = ((k.v >> 32) & 4294967295) AND l.objid::bigint = (k.v & 4294967295)`,
    [tenantId],
  );
  return (rows[0] as { n: number }).n;
}

/** Holds the tenant write lock in a transaction of its own until `release` is called. */
export function holdTenantLock(db: Db, tenantId: string): Promise<{ release: () => void; done: Promise<void> }> {
  return new Promise((held) => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const done = withTenant(db, tenantId, async (tx) => {
      // Takes the tenant write lock (no erasure fence is held yet, so the check passes).
      await lockTenantAgainstLease(tx, { tenantId });
      held({ release, done });
      await gate;
    });
  });
}

export async function pendingActivities(run: WorkflowHandle): Promise<string[]> {
  const pending = (await run.describe()).raw.pendingActivities ?? [];
  return pending.map((a) => a.activityType?.name ?? '?');
}

/** Lets the tenant's operation lease expire now, as it would once its holder stopped renewing it for 30 minutes. */
export async function expireOperationLease(db: Db, tenantId: string): Promise<void> {
  await withTenant(db, tenantId, (tx) =>
    tx.query(`UPDATE tenant_operations SET expires_at = now() - interval '1 second' WHERE holder IS NOT NULL`),
  );
}

export const POLL = { timeout: 30_000, interval: 100 };
