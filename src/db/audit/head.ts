import type { Db } from '../db.ts';
import { withTenant } from '../tenant.ts';
import { selectAuditHead } from './queries.ts';

/** The tenant's last audit entry (what the archive anchors), or undefined before the first. */
export async function getAuditHead(
  db: Db,
  tenantId: string,
): Promise<{ seq: number; hash: string; keyId: string | null } | undefined> {
  return withTenant(db, tenantId, (tx) => selectAuditHead(tx, { tenantId }));
}
