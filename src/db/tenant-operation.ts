import { z } from 'zod';
import type { Db, Queryable } from './db.ts';
import { TenantBusyError } from './errors.ts';
import { withTenant } from './tenant.ts';
import { isoColumn } from './rows.ts';

/**
 * The per-tenant operation lease of migration 0023, shared by consolidations (plan to last
 * commit), run rollbacks, erasures and reindexes (policies/tenant-operations.ts: every pair of
 * them excludes each other, so the lease has one holder). It takes its own row lock, never the
 * tenant write lock: an operation refused here fails at once even while a commit waits for that
 * lock.
 */

/**
 * How long a lease lives without renewal. Each activity of a holder renews it when it starts,
 * and none runs longer than 10 minutes (start-to-close), so a live holder never loses it; one
 * whose workflow was terminated or whose workers are gone frees the tenant after this. @default 1800
 */
export const OPERATION_LEASE_SECONDS = 1800;

export type OperationKind = 'consolidation' | 'run_rollback' | 'erasure' | 'reindex';

export interface OperationLease {
  kind: OperationKind;
  holder: string;
  acquiredAt: string;
  expiresAt: string;
  expired: boolean;
}

const LeaseRow = z.object({
  kind: z.enum(['consolidation', 'run_rollback', 'erasure', 'reindex']),
  holder: z.string(),
  acquired_at: isoColumn,
  expires_at: isoColumn,
  expired: z.boolean(),
});

/**
 * Takes the lease for `holder` (a workflow id) or renews it. A holder whose lease expired is
 * taken over (returned as `tookOver`); a live lease of another holder throws TenantBusyError
 * naming it. Runs inside the caller's withTenant.
 */
export async function takeTenantOperation(
  tx: Queryable,
  p: { tenantId: string; kind: OperationKind; holder: string; seconds?: number },
): Promise<{ tookOver?: OperationLease }> {
  const before = await selectLease(tx, 'FOR UPDATE');
  const { rowCount } = await tx.query(
    `INSERT INTO tenant_operations AS t (tenant_id, kind, holder, acquired_at, renewed_at, expires_at)
     VALUES ($1, $2, $3, now(), now(), now() + make_interval(secs => $4))
     ON CONFLICT (tenant_id) DO UPDATE
        SET kind = EXCLUDED.kind, holder = EXCLUDED.holder, renewed_at = now(), expires_at = EXCLUDED.expires_at,
            acquired_at = CASE WHEN t.holder = EXCLUDED.holder THEN t.acquired_at ELSE now() END
      WHERE t.holder IS NULL OR t.holder = EXCLUDED.holder OR t.expires_at <= now()`,
    [p.tenantId, p.kind, p.holder, p.seconds ?? OPERATION_LEASE_SECONDS],
  );
  if (rowCount === 0) {
    // Held by another live holder: the one read before, or one whose first lease committed since.
    const now = (await selectLease(tx, '')) ?? before;
    throw new TenantBusyError(
      p.tenantId,
      now ?? { kind: 'operation', holder: 'unknown', expiresAt: 'unknown' },
      p.kind,
    );
  }
  return before && before.holder !== p.holder ? { tookOver: before } : {};
}

/** Frees the lease if `holder` still has it (a holder that lost it to another frees nothing). */
export async function freeTenantOperation(tx: Queryable, p: { tenantId: string; holder: string }): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE tenant_operations SET kind = NULL, holder = NULL, acquired_at = NULL, renewed_at = now(), expires_at = NULL
      WHERE tenant_id = $1 AND holder = $2`,
    [p.tenantId, p.holder],
  );
  return rowCount > 0;
}

/** {@link takeTenantOperation} in a transaction of its own. */
export function holdTenantOperation(
  db: Db,
  p: { tenantId: string; kind: OperationKind; holder: string; seconds?: number },
): Promise<{ tookOver?: OperationLease }> {
  return withTenant(db, p.tenantId, (tx) => takeTenantOperation(tx, p));
}

/** {@link freeTenantOperation} in a transaction of its own. */
export function releaseTenantOperation(db: Db, p: { tenantId: string; holder: string }): Promise<boolean> {
  return withTenant(db, p.tenantId, (tx) => freeTenantOperation(tx, p));
}

/** The tenant's lease, expired or not; undefined when nobody holds it. */
export function getTenantOperation(db: Db, p: { tenantId: string }): Promise<OperationLease | undefined> {
  return withTenant(db, p.tenantId, (tx) => selectLease(tx, ''));
}

async function selectLease(tx: Queryable, lock: 'FOR UPDATE' | ''): Promise<OperationLease | undefined> {
  const { rows } = await tx.query(
    `SELECT kind, holder, acquired_at, expires_at, expires_at <= now() AS expired
       FROM tenant_operations WHERE holder IS NOT NULL ${lock}`,
  );
  if (rows[0] === undefined) return undefined;
  const r = LeaseRow.parse(rows[0]);
  return { kind: r.kind, holder: r.holder, acquiredAt: r.acquired_at, expiresAt: r.expires_at, expired: r.expired };
}
