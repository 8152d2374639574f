import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../contracts/audit.ts';

/** prev_hash of a tenant's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

export type UnhashedAuditEntry = Omit<AuditEntry, 'hash'>;

/**
 * sha256 over the JSON of every field but `hash`, in this fixed key order (the canonical form:
 * never reorder it, or every stored chain stops verifying) — prevHash included, which is what
 * chains the entries: changing any earlier entry changes every later hash.
 */
export function auditHash(entry: UnhashedAuditEntry): string {
  const content = {
    seq: entry.seq,
    tenantId: entry.tenantId,
    at: entry.at,
    actor: entry.actor,
    action: entry.action,
    noteId: entry.noteId,
    fromVersion: entry.fromVersion,
    toVersion: entry.toVersion,
    reason: entry.reason,
    prevHash: entry.prevHash,
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** Appends entries after `head` (the tenant's last entry, or none), assigning seq and hashes. */
export function chainAuditEntries(
  head: { seq: number; hash: string } | undefined,
  entries: Array<Omit<UnhashedAuditEntry, 'seq' | 'prevHash'>>,
): AuditEntry[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  return entries.map((e) => {
    seq += 1;
    const unhashed: UnhashedAuditEntry = { ...e, seq, prevHash };
    const hash = auditHash(unhashed);
    prevHash = hash;
    return { ...unhashed, hash };
  });
}
