import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../contracts/audit.ts';
import { type AuditKey, keyedAuditHash, type VersionContent, versionDigest } from './keyed.ts';

/** prev_hash of a tenant's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

export type UnhashedAuditEntry = Omit<AuditEntry, 'hash' | 'keyId' | 'versionDigest'>;

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

/** An entry to append, with the version it records (absent when it records none). */
export type NewAuditEntry = Omit<UnhashedAuditEntry, 'seq' | 'prevHash'> & { version?: VersionContent };

/**
 * Appends entries after `head` (the tenant's last entry, or none), assigning seq and hashes:
 * keyed entries (HMAC, covering the recorded version's digest) when the store holds an audit
 * key, legacy sha256 entries otherwise (the embedded store of a development machine).
 */
export function chainAuditEntries(
  head: { seq: number; hash: string } | undefined,
  entries: NewAuditEntry[],
  key?: AuditKey,
): AuditEntry[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  return entries.map(({ version, ...e }) => {
    seq += 1;
    const unhashed: UnhashedAuditEntry = { ...e, seq, prevHash };
    const entry: AuditEntry = key
      ? keyedEntry(unhashed, key, version ? versionDigest(version) : null)
      : { ...unhashed, hash: auditHash(unhashed) };
    prevHash = entry.hash;
    return entry;
  });
}

function keyedEntry(unhashed: UnhashedAuditEntry, key: AuditKey, digest: string | null): AuditEntry {
  const fields = { ...unhashed, keyId: key.id, versionDigest: digest };
  return { ...fields, hash: keyedAuditHash(fields, key) };
}
