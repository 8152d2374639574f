import { z } from 'zod';
import type { Db } from '../db.ts';
import { lockTenantWrites } from '../notes/write-queries.ts';
import { intColumn } from '../rows.ts';
import { withTenant } from '../tenant.ts';

/** The reason an audit entry carries once erasure has redacted it. */
export function redactedReason(sha256Hex: string): string {
  return `[erased sha256:${sha256Hex}]`;
}

const RedactRow = z.object({ redacted: intColumn, relinked: intColumn });

/**
 * Replaces every audit reason that contains one of `needles` by its sha256 and re-links the
 * chain from the first redacted entry on, so verifyAuditChain still passes. The database does
 * both (nocturne_redact_audit, migration 0012): it accepts only strings of the erasure in
 * progress (`subject`'s erasure_work) and computes every hash itself. Original hashes are kept
 * in audit_redactions. Idempotent: a second call finds nothing to redact.
 */
export async function redactAudit(
  db: Db,
  p: { tenantId: string; subject: string; needles: string[] },
): Promise<{ redacted: number; relinked: number }> {
  const needles = p.needles.filter((n) => n.length > 0);
  if (needles.length === 0) return { redacted: 0, relinked: 0 };
  return withTenant(db, p.tenantId, async (tx) => {
    await lockTenantWrites(tx, p);
    const { rows } = await tx.query(`SELECT * FROM nocturne_redact_audit($1, $2::text[])`, [p.subject, needles]);
    return RedactRow.parse(rows[0]);
  });
}
