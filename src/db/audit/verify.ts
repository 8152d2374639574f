import type { Db } from '../db.ts';
import { withTenant } from '../tenant.ts';
import { auditHash, GENESIS_HASH } from './hash.ts';
import { selectAuditPage } from './queries.ts';

export type AuditChainReport =
  { ok: true; entries: number } | { ok: false; entries: number; brokenSeq: number; reason: string };

const PAGE = 1000;

/**
 * Recomputes the tenant's hash chain from seq 1. Reports the first entry whose content no
 * longer matches its hash, whose prevHash does not match its predecessor, or whose seq skips.
 */
export async function verifyAuditChain(db: Db, tenantId: string): Promise<AuditChainReport> {
  return withTenant(db, tenantId, async (tx) => {
    let expectedSeq = 1;
    let prevHash = GENESIS_HASH;
    for (;;) {
      const page = await selectAuditPage(tx, { tenantId, afterSeq: expectedSeq - 1, limit: PAGE });
      for (const entry of page) {
        const broken = (reason: string): AuditChainReport => ({
          ok: false,
          entries: expectedSeq - 1,
          brokenSeq: entry.seq,
          reason,
        });
        if (entry.seq !== expectedSeq)
          return {
            ok: false,
            entries: expectedSeq - 1,
            brokenSeq: expectedSeq,
            reason: `entry ${expectedSeq} is missing`,
          };
        if (entry.prevHash !== prevHash) return broken('prevHash does not match the previous entry');
        if (auditHash(entry) !== entry.hash) return broken('content does not match its hash');
        prevHash = entry.hash;
        expectedSeq += 1;
      }
      if (page.length < PAGE) return { ok: true, entries: expectedSeq - 1 };
    }
  });
}
