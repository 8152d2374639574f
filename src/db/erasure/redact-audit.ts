import { z } from 'zod';
import type { AuditEntry } from '../../contracts/audit.ts';
import { auditHash } from '../audit/hash.ts';
import { selectAuditPage } from '../audit/queries.ts';
import type { Db } from '../db.ts';
import { lockTenantWrites } from '../notes/write-queries.ts';
import { intColumn } from '../rows.ts';
import { withTenant } from '../tenant.ts';

/** The reason an audit entry carries once erasure has redacted it. */
export function redactedReason(sha256Hex: string): string {
  return `[erased sha256:${sha256Hex}]`;
}

/**
 * Replaces every audit reason that contains one of `needles` by its sha256 and re-links the
 * chain from the first redacted entry on (hashes recomputed with the canonical auditHash), so
 * verifyAuditChain still passes. Original hashes are kept in audit_redactions. Idempotent: a
 * second call finds nothing to redact.
 */
export async function redactAudit(
  db: Db,
  p: { tenantId: string; subject: string; needles: string[]; digest: (text: string) => string },
): Promise<{ redacted: number; relinked: number }> {
  const needles = p.needles.filter((n) => n.length > 0);
  if (needles.length === 0) return { redacted: 0, relinked: 0 };
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const all: AuditEntry[] = [];
    for (let after = 0; ;) {
      const page = await selectAuditPage(tx, { tenantId: p.tenantId, afterSeq: after, limit: 1000 });
      all.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)?.seq ?? after;
    }
    const first = all.findIndex((e) => needles.some((n) => e.reason.includes(n)));
    if (first === -1) return { redacted: 0, relinked: 0 };
    let prevHash = all[first - 1]?.hash ?? all[first]?.prevHash ?? '';
    let redacted = 0;
    const rewritten: Array<{ seq: number; reason: string; prevHash: string; hash: string }> = [];
    for (const e of all.slice(first)) {
      const hit = needles.some((n) => e.reason.includes(n));
      if (hit) redacted += 1;
      const reason = hit ? redactedReason(p.digest(e.reason)) : e.reason;
      const hash = auditHash({ ...e, reason, prevHash });
      rewritten.push({ seq: e.seq, reason, prevHash, hash });
      prevHash = hash;
    }
    let relinked = 0;
    for (let i = 0; i < rewritten.length; i += 1000) {
      const { rows } = await tx.query(`SELECT nocturne_redact_audit($1, $2::jsonb) AS n`, [
        p.subject,
        JSON.stringify(rewritten.slice(i, i + 1000)),
      ]);
      relinked += z.object({ n: intColumn }).parse(rows[0]).n;
    }
    return { redacted, relinked };
  });
}
