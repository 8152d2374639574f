import { createHash, createHmac } from 'node:crypto';
import type { AuditEntry } from '../../contracts/audit.ts';

/**
 * Keyed audit entries. A keyed entry's hash is an HMAC-SHA256, under a key the database never
 * sees (NOCTURNE_AUDIT_KEY), over the entry, the previous entry's hash, a digest of its reason
 * and a digest of the note version it records. Whoever can write the tables but does not hold
 * the key can neither re-chain after an edit nor change a recorded version's claim, structure
 * or evidence without the chain showing it.
 */

/** The key as the writer holds it: its bytes and a short public id stored with each entry. */
export interface AuditKey {
  readonly secret: Buffer;
  readonly id: string;
}

export function auditKey(secret: string): AuditKey {
  const bytes = Buffer.from(secret, 'utf8');
  const id = createHash('sha256').update('nocturne-audit-key-id:').update(bytes).digest('hex').slice(0, 16);
  return { secret: bytes, id };
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * JSON with object keys sorted at every level: the same value always gives the same text. Keys
 * sort by UTF-16 code units (`Array.prototype.sort`'s default order), properties holding
 * `undefined` are left out. Written with plain loops: every committed version's evidence list
 * (up to 50 refs) goes through it, and the entries-filter-sort-map form was half of planning a
 * batch.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    // `?? ''`: JSON.stringify gives undefined for undefined, a function or a symbol; join wrote ''.
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (canonicalJson(value[i]) ?? '');
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** What an audit entry vouches for in the version it records. */
export interface VersionContent {
  claim: string;
  structure?: unknown;
  evidence: unknown[];
}

export function versionDigest(v: VersionContent): string {
  return sha256(canonicalJson({ claim: v.claim, structure: v.structure ?? null, evidence: v.evidence }));
}

const REDACTED = /^\[erased sha256:([0-9a-f]{64})\]$/;

/**
 * The reason's digest. Erasure replaces a reason by `[erased sha256:<its digest>]`, so the digest,
 * and with it the entry's hash, survives redaction: the chain needs no re-linking.
 */
export function reasonDigest(reason: string): string {
  return REDACTED.exec(reason)?.[1] ?? sha256(reason);
}

export type KeyedFields = Omit<AuditEntry, 'hash' | 'keyId' | 'versionDigest'> & {
  keyId: string;
  versionDigest: string | null;
};

/** HMAC over the entry's fields in this fixed order (the canonical form: never reorder it). */
export function keyedAuditHash(entry: KeyedFields, key: AuditKey): string {
  const content = {
    format: 2,
    keyId: entry.keyId,
    seq: entry.seq,
    tenantId: entry.tenantId,
    at: entry.at,
    actor: entry.actor,
    action: entry.action,
    noteId: entry.noteId,
    fromVersion: entry.fromVersion,
    toVersion: entry.toVersion,
    reasonSha256: reasonDigest(entry.reason),
    versionDigest: entry.versionDigest,
    prevHash: entry.prevHash,
  };
  return createHmac('sha256', key.secret).update(JSON.stringify(content)).digest('hex');
}
