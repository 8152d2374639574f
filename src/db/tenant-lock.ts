import { z } from 'zod';
import type { Queryable } from './db.ts';
import { RunFencedError, TenantLockedError } from './errors.ts';
import { lockTenantWrites } from './notes/write-queries.ts';
import { intColumn, isoColumn } from './rows.ts';

/**
 * The per-tenant lease of migration 0017. Every function runs inside withTenant and takes the
 * tenant write lock first, so checking the lease and writing are serialised with taking it: a
 * commit that began before an erasure took the lease finishes first, and one that begins after
 * sees the lease.
 */

/**
 * How long a lease lives without renewal. Longer than the longest erasure activity (10 minutes
 * start-to-close) because each activity renews it when it starts; a crashed or terminated
 * erasure frees the tenant after this. @default 1800
 */
export const LEASE_SECONDS = 1800;

const LeaseRow = z.object({ holder: z.string().nullable(), purpose: z.string().nullable(), expires_at: isoColumn });

/**
 * Takes or renews the lease for `holder`. A new holder bumps the tenant's erasure epoch (runs
 * that started before are fenced); a renewal does not. Throws TenantLockedError while another
 * holder's lease is live.
 */
export async function takeTenantLease(
  tx: Queryable,
  p: { tenantId: string; holder: string; purpose: string; seconds?: number },
): Promise<{ renewed: boolean }> {
  await lockTenantWrites(tx, p);
  const current = await liveLease(tx);
  if (current && current.holder !== p.holder) throw lockedBy(p.tenantId, current);
  const renewed = current?.holder === p.holder;
  await tx.query(
    `INSERT INTO tenant_locks (tenant_id, holder, purpose, expires_at, epoch, updated_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4), 1, now())
     ON CONFLICT (tenant_id) DO UPDATE
        SET holder = EXCLUDED.holder, purpose = EXCLUDED.purpose, expires_at = EXCLUDED.expires_at,
            epoch = tenant_locks.epoch + CASE WHEN $5 THEN 0 ELSE 1 END, updated_at = now()`,
    [p.tenantId, p.holder, p.purpose, p.seconds ?? LEASE_SECONDS, renewed],
  );
  return { renewed };
}

/**
 * Frees the lease if `holder` still has it, bumping the epoch once more (runs started during the
 * erasure are fenced too). An erasure that never took it (refused by the operation lease) frees
 * nothing and does not wait for the tenant write lock, which a run's write may hold.
 */
export async function releaseTenantLease(tx: Queryable, p: { tenantId: string; holder: string }): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM tenant_locks WHERE tenant_id = $1 AND holder = $2`, [
    p.tenantId,
    p.holder,
  ]);
  if (rows.length === 0) return false;
  await lockTenantWrites(tx, p);
  const { rowCount } = await tx.query(
    `UPDATE tenant_locks SET holder = NULL, purpose = NULL, expires_at = NULL, epoch = epoch + 1, updated_at = now()
      WHERE tenant_id = $1 AND holder = $2`,
    [p.tenantId, p.holder],
  );
  return rowCount > 0;
}

/** For writers other than the holder: throws TenantLockedError while a lease is live. Call under lockTenantWrites. */
export async function assertTenantWritable(tx: Queryable, p: { tenantId: string; holder?: string }): Promise<void> {
  const current = await liveLease(tx);
  if (current && current.holder !== p.holder) throw lockedBy(p.tenantId, current);
}

/** Takes the tenant write lock and refuses while another holder's lease is live: the guard of writers outside applyNoteBatch. */
export async function lockTenantAgainstLease(tx: Queryable, p: { tenantId: string }): Promise<void> {
  await lockTenantWrites(tx, p);
  await assertTenantWritable(tx, p);
}

/** For a run's commits and approval: throws RunFencedError when an erasure started or ended since the run began. */
export async function assertRunNotFenced(tx: Queryable, p: { tenantId: string; runId: string }): Promise<void> {
  const { rows } = await tx.query(
    `SELECT r.erasure_epoch AS run_epoch, coalesce(l.epoch, 0) AS epoch
       FROM runs r LEFT JOIN tenant_locks l ON l.tenant_id = r.tenant_id
      WHERE r.tenant_id = $1 AND r.run_id = $2`,
    [p.tenantId, p.runId],
  );
  if (rows[0] === undefined) return;
  const r = z.object({ run_epoch: intColumn, epoch: intColumn }).parse(rows[0]);
  if (r.run_epoch !== r.epoch) throw new RunFencedError(p.tenantId, p.runId);
}

/**
 * For a run's working state (its planned episodes, its replayed operations and rejections): takes
 * the tenant write lock and refuses while an erasure holds the lease (TenantLockedError) or once
 * one started or ended since the run began (RunFencedError). What the run read from the archive
 * before may hold records the erasure removes; written before the lease it is scrubbed, and after
 * it, never written.
 */
export async function lockRunAgainstErasure(tx: Queryable, p: { tenantId: string; runId: string }): Promise<void> {
  await lockTenantAgainstLease(tx, p);
  await assertRunNotFenced(tx, p);
}

/** The tenant's erasure epoch (0 before its first erasure): a writer without a run reads it before it reads the archive. */
export async function selectErasureEpoch(tx: Queryable): Promise<number> {
  const { rows } = await tx.query(`SELECT epoch FROM tenant_locks`);
  return rows[0] === undefined ? 0 : z.object({ epoch: intColumn }).parse(rows[0]).epoch;
}

/**
 * The epoch under which a worker may use archive objects it holds without asking the store
 * again: the tenant's erasure epoch, or undefined while an erasure holds the lease (its rewrite
 * may be half done, and a lease that expires unreleased would leave the epoch where it was).
 * Every erasure takes the lease, bumping the epoch, before it touches an object.
 */
export async function selectArchiveCacheEpoch(tx: Queryable): Promise<number | undefined> {
  if ((await liveLease(tx)) !== undefined) return undefined;
  return selectErasureEpoch(tx);
}

/**
 * For writers without a run (the raw-record index): takes the tenant write lock and says whether
 * no erasure holds the lease and none started or ended since `epoch` was read.
 */
export async function lockIfNoErasureSince(tx: Queryable, p: { tenantId: string; epoch: number }): Promise<boolean> {
  await lockTenantWrites(tx, p);
  if ((await liveLease(tx)) !== undefined) return false;
  return (await selectErasureEpoch(tx)) === p.epoch;
}

async function liveLease(tx: Queryable): Promise<z.infer<typeof LeaseRow> | undefined> {
  const { rows } = await tx.query(
    `SELECT holder, purpose, expires_at FROM tenant_locks WHERE holder IS NOT NULL AND expires_at > now()`,
  );
  return rows[0] === undefined ? undefined : LeaseRow.parse(rows[0]);
}

const lockedBy = (tenantId: string, lease: z.infer<typeof LeaseRow>) =>
  new TenantLockedError(tenantId, lease.purpose ?? 'erasure', lease.expires_at);
