import { z } from 'zod';
import { AUDIT_ACTIONS, type AuditEntry } from '../../contracts/audit.ts';
import type { Queryable } from '../db.ts';
import { intColumn, isoColumn } from '../rows.ts';

const AuditRow = z
  .object({
    tenant_id: z.string(),
    seq: intColumn,
    at: isoColumn,
    actor: z.string(),
    action: z.enum(AUDIT_ACTIONS),
    note_id: z.string(),
    from_version: intColumn.nullable(),
    to_version: intColumn.nullable(),
    reason: z.string(),
    prev_hash: z.string(),
    hash: z.string(),
    key_id: z.string().nullable(),
    version_digest: z.string().nullable(),
  })
  .transform((r): AuditEntry => ({
    seq: r.seq,
    tenantId: r.tenant_id,
    at: r.at,
    actor: r.actor,
    action: r.action,
    noteId: r.note_id,
    fromVersion: r.from_version,
    toVersion: r.to_version,
    reason: r.reason,
    prevHash: r.prev_hash,
    hash: r.hash,
    keyId: r.key_id,
    versionDigest: r.version_digest,
  }));

const AUDIT_COLUMNS =
  'tenant_id, seq, at, actor, action, note_id, from_version, to_version, reason, prev_hash, hash, key_id, version_digest';

const HeadRow = z.object({ seq: intColumn, hash: z.string(), key_id: z.string().nullable() }).transform((r) => ({
  seq: r.seq,
  hash: r.hash,
  keyId: r.key_id,
}));

/** The tenant's last entry: where the next one chains on. Callers hold the tenant write lock. */
export async function selectAuditHead(
  tx: Queryable,
  p: { tenantId: string },
): Promise<{ seq: number; hash: string; keyId: string | null } | undefined> {
  const { rows } = await tx.query(
    `SELECT seq, hash, key_id FROM audit_log WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1`,
    [p.tenantId],
  );
  return rows[0] === undefined ? undefined : HeadRow.parse(rows[0]);
}

export async function insertAuditEntries(tx: Queryable, p: { tenantId: string; entries: AuditEntry[] }): Promise<void> {
  if (p.entries.length === 0) return;
  const records = p.entries.map((e) => ({
    seq: e.seq,
    at: e.at,
    actor: e.actor,
    action: e.action,
    note_id: e.noteId,
    from_version: e.fromVersion,
    to_version: e.toVersion,
    reason: e.reason,
    prev_hash: e.prevHash,
    hash: e.hash,
    key_id: e.keyId ?? null,
    version_digest: e.versionDigest ?? null,
  }));
  // One statement for the whole batch: round trips, not rows, dominate commit time.
  await tx.query(
    `INSERT INTO audit_log (${AUDIT_COLUMNS})
     SELECT $1, r.seq, r.at, r.actor, r.action, r.note_id, r.from_version, r.to_version, r.reason, r.prev_hash, r.hash,
            r.key_id, r.version_digest
       FROM jsonb_to_recordset($2::jsonb) AS r(seq bigint, at timestamptz, actor text, action text, note_id text,
            from_version int, to_version int, reason text, prev_hash text, hash text, key_id text, version_digest text)`,
    [p.tenantId, JSON.stringify(records)],
  );
}

export async function selectNoteAudit(tx: Queryable, p: { tenantId: string; noteId: string }): Promise<AuditEntry[]> {
  const { rows } = await tx.query(
    `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE tenant_id = $1 AND note_id = $2 ORDER BY seq`,
    [p.tenantId, p.noteId],
  );
  return rows.map((r) => AuditRow.parse(r));
}

/** One page of the tenant's chain in seq order (keyset paging keeps verification memory flat). */
export async function selectAuditPage(
  tx: Queryable,
  p: { tenantId: string; afterSeq: number; limit: number },
): Promise<AuditEntry[]> {
  const { rows } = await tx.query(
    `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [p.tenantId, p.afterSeq, p.limit],
  );
  return rows.map((r) => AuditRow.parse(r));
}

const RedactionRow = z.object({ seq: intColumn, original_hash: z.string(), reason_sha256: z.string().nullable() });

/** What erasure recorded when it redacted these entries: the hash and the reason digest it replaced. */
export async function selectRedactions(
  tx: Queryable,
  p: { tenantId: string; seqs: number[] },
): Promise<Array<{ seq: number; originalHash: string; reasonSha256: string | null }>> {
  if (p.seqs.length === 0) return [];
  const { rows } = await tx.query(
    `SELECT seq, original_hash, reason_sha256 FROM audit_redactions WHERE tenant_id = $1 AND seq = ANY($2::bigint[])`,
    [p.tenantId, p.seqs],
  );
  return rows.map((r) => {
    const row = RedactionRow.parse(r);
    return { seq: row.seq, originalHash: row.original_hash, reasonSha256: row.reason_sha256 };
  });
}
