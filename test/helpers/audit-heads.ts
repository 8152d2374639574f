import { expect } from 'vitest';
import type { ArchiveStore } from '../../src/archive/index.ts';
import { verifyTenantAudit } from '../../src/audit/anchor.ts';
import { getAuditHead, type Db } from '../../src/db/index.ts';

/** The tenant's chain verifies against the archive, and its current head is the latest one published there. */
export async function expectHeadPublished(ports: { db: Db; archive: ArchiveStore }, tenantId: string): Promise<void> {
  const verified = await verifyTenantAudit(ports, tenantId);
  expect(verified.chain).toMatchObject({ ok: true });
  expect(verified.latestPublished).toBe((await getAuditHead(ports.db, tenantId))?.seq);
}
