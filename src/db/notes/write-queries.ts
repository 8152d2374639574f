import { toSql } from 'pgvector';
import { z } from 'zod';
import type { NoteVersion } from '../../contracts/note.ts';
import type { Queryable } from '../db.ts';
import type { PointerMove, VersionDraft } from './plan.ts';
import { BatchResult } from './ops.ts';
import { NoteVersionRow, VERSION_COLUMNS } from './version-row.ts';

/**
 * Serialises a tenant's note writers for the rest of the transaction. The audit chain needs a
 * single writer per tenant (seq and prevHash are read then written), and taking this one lock
 * first means two batches can never deadlock on note rows in opposite orders.
 */
export async function lockTenantWrites(tx: Queryable, p: { tenantId: string }): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('nocturne.note-writes:' || $1, 0))`, [p.tenantId]);
}

const AppliedRow = z.object({ ops_hash: z.string(), result: BatchResult });

export async function selectAppliedBatch(
  tx: Queryable,
  p: { tenantId: string; runId: string; batchNo: number },
): Promise<{ opsHash: string; result: BatchResult } | undefined> {
  const { rows } = await tx.query(
    `SELECT ops_hash, result FROM applied_batches WHERE tenant_id = $1 AND run_id = $2 AND batch_no = $3`,
    [p.tenantId, p.runId, p.batchNo],
  );
  const row = rows[0] === undefined ? undefined : AppliedRow.parse(rows[0]);
  return row && { opsHash: row.ops_hash, result: row.result };
}

export async function insertAppliedBatch(tx: Queryable, p: { result: BatchResult; opsHash: string }): Promise<void> {
  const r = p.result;
  await tx.query(
    `INSERT INTO applied_batches (tenant_id, run_id, batch_no, ops_hash, result, applied_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
    [r.tenantId, r.runId, r.batchNo, p.opsHash, JSON.stringify(r), r.appliedAt],
  );
}

/** Current versions of the named notes, their pointer rows locked until commit. */
export async function selectCurrentVersionsForUpdate(
  tx: Queryable,
  p: { tenantId: string; noteIds: string[] },
): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.tenant_id = $1 AND n.note_id = ANY($2::text[])
      FOR UPDATE OF n`,
    [p.tenantId, p.noteIds],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

export async function selectVersions(
  tx: Queryable,
  p: { tenantId: string; keys: Array<{ noteId: string; version: number }> },
): Promise<NoteVersion[]> {
  if (p.keys.length === 0) return [];
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM note_versions v
       JOIN unnest($2::text[], $3::int[]) AS k(note_id, version) ON k.note_id = v.note_id AND k.version = v.version
      WHERE v.tenant_id = $1`,
    [p.tenantId, p.keys.map((k) => k.noteId), p.keys.map((k) => k.version)],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

function versionRecord(d: VersionDraft) {
  return {
    note_id: d.noteId,
    version: d.version,
    status: d.status,
    scope_level: d.scope.level,
    scope_key: d.scope.key,
    kind: d.kind,
    claim: d.claim,
    evidence: d.evidence,
    source_kind: d.sourceKind,
    confidence: d.confidence,
    importance: d.importance,
    valid_from: d.validFrom,
    valid_until: d.validUntil,
    superseded_by: d.supersededBy,
    source_count: d.sourceCount,
    last_confirmed_at: d.lastConfirmedAt,
    contradicted_at: d.contradictedAt,
    structure: d.structure ?? null,
    created_by_run: d.createdByRun,
    embedding: d.embedding && 'vector' in d.embedding ? (toSql(d.embedding.vector) as string) : null,
    embedding_from: d.embedding && 'copyFrom' in d.embedding ? d.embedding.copyFrom : null,
  };
}

/**
 * Inserts all versions of a batch in one statement (the rows travel as one jsonb parameter).
 * An unchanged claim copies its vectors from the persisted version named by embedding_from, each
 * with the model that produced it (migration 0021): the live one and a running rebuild's, so a
 * version written while a rebuild runs carries the new model's vector into the switch too.
 */
export async function insertVersions(
  tx: Queryable,
  p: { tenantId: string; at: string; versions: VersionDraft[] },
): Promise<void> {
  await tx.query(
    `INSERT INTO note_versions (tenant_id, note_id, version, status, scope_level, scope_key, kind, claim, evidence,
            source_kind, confidence, importance, valid_from, valid_until, superseded_by, source_count,
            last_confirmed_at, contradicted_at, structure, created_by_run, created_at, embedding, embedding_model,
            embedding_next, embedding_next_model)
     SELECT $1, r.note_id, r.version, r.status, r.scope_level, r.scope_key, r.kind, r.claim, r.evidence,
            r.source_kind, r.confidence, r.importance, r.valid_from, r.valid_until, r.superseded_by, r.source_count,
            r.last_confirmed_at, r.contradicted_at, r.structure, r.created_by_run, $3::timestamptz,
            COALESCE(r.embedding::vector, p.embedding), CASE WHEN r.embedding IS NULL THEN p.embedding_model END,
            CASE WHEN r.embedding IS NULL THEN p.embedding_next END,
            CASE WHEN r.embedding IS NULL THEN p.embedding_next_model END
       FROM jsonb_to_recordset($2::jsonb) AS r(note_id text, version int, status text, scope_level text, scope_key text,
            kind text, claim text, evidence jsonb, source_kind text, confidence float8, importance float8,
            valid_from timestamptz, valid_until timestamptz, superseded_by text, source_count int,
            last_confirmed_at timestamptz, contradicted_at timestamptz, structure jsonb, created_by_run text, embedding text,
            embedding_from int)
       LEFT JOIN note_versions p ON p.tenant_id = $1 AND p.note_id = r.note_id AND p.version = r.embedding_from`,
    [p.tenantId, JSON.stringify(p.versions.map(versionRecord)), p.at],
  );
}

/** Pointers of notes the batch created. Returns how many were inserted. */
export async function insertPointers(
  tx: Queryable,
  p: { tenantId: string; at: string; pointers: PointerMove[] },
): Promise<number> {
  if (p.pointers.length === 0) return 0;
  const { rowCount } = await tx.query(
    `INSERT INTO notes (tenant_id, note_id, current_version, status, created_at, updated_at)
     SELECT $1, r.note_id, r.version, r.status, $3::timestamptz, $3::timestamptz
       FROM jsonb_to_recordset($2::jsonb) AS r(note_id text, version int, status text)
     ON CONFLICT (tenant_id, note_id) DO NOTHING`,
    [
      p.tenantId,
      JSON.stringify(p.pointers.map((m) => ({ note_id: m.noteId, version: m.version, status: m.status }))),
      p.at,
    ],
  );
  return rowCount;
}

/**
 * Moves existing pointers, each only if it still points at the version the batch started from
 * (the optimistic check, enforced by the database as well as by the plan). Returns how many moved.
 */
export async function movePointers(
  tx: Queryable,
  p: { tenantId: string; at: string; pointers: PointerMove[] },
): Promise<number> {
  if (p.pointers.length === 0) return 0;
  const records = p.pointers.map((m) => ({
    note_id: m.noteId,
    version: m.version,
    status: m.status,
    expected: m.startVersion,
  }));
  const { rowCount } = await tx.query(
    `UPDATE notes n
        SET current_version = r.version, status = r.status, updated_at = $3::timestamptz
       FROM jsonb_to_recordset($2::jsonb) AS r(note_id text, version int, status text, expected int)
      WHERE n.tenant_id = $1 AND n.note_id = r.note_id AND n.current_version = r.expected`,
    [p.tenantId, JSON.stringify(records), p.at],
  );
  return rowCount;
}
