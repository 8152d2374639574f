import { toSql } from 'pgvector';
import { z } from 'zod';
import type { Queryable } from './db.ts';
import { intColumn, isoColumnNullable } from './rows.ts';

/**
 * The embedding projection rebuild (migration 0008). Every call runs inside `withTenant`, so
 * row-level security scopes it to one tenant. Reindexed: the current version of every active
 * or staged note — the versions recall can return or an approval can activate.
 */

const REINDEXABLE = `n.status IN ('active', 'staged')`;

export interface ReindexItem {
  noteId: string;
  version: number;
  claim: string;
}

const ItemRow = z
  .object({ note_id: z.string(), version: intColumn, claim: z.string() })
  .transform((r) => ({ noteId: r.note_id, version: r.version, claim: r.claim }));

/** One page in note id order after `after` (a note id; the cursor is stable under concurrent writes). */
export async function selectReindexPage(
  tx: Queryable,
  p: { after: string | null; limit: number },
): Promise<ReindexItem[]> {
  const { rows } = await tx.query(
    `SELECT v.note_id, v.version, v.claim
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE ${REINDEXABLE} AND ($1::text IS NULL OR n.note_id > $1::text)
      ORDER BY n.note_id
      LIMIT $2`,
    [p.after, p.limit],
  );
  return rows.map((r) => ItemRow.parse(r));
}

export async function countReindexable(tx: Queryable): Promise<number> {
  const { rows } = await tx.query(`SELECT count(*) AS total FROM notes n WHERE ${REINDEXABLE}`);
  return z.object({ total: intColumn }).parse(rows[0]).total;
}

/** Writes the new model's vectors beside the live ones (idempotent: a retry rewrites the same); never on an erased note. */
export async function writeNextEmbeddings(
  tx: Queryable,
  p: { items: Array<{ noteId: string; version: number; embedding: number[] }> },
): Promise<number> {
  if (p.items.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE note_versions v SET embedding_next = x.embedding::vector
       FROM jsonb_to_recordset($1::jsonb) AS x(note_id text, version int, embedding text), notes n
      WHERE v.note_id = x.note_id AND v.version = x.version
        AND n.tenant_id = v.tenant_id AND n.note_id = v.note_id AND n.status <> 'erased'`,
    [JSON.stringify(p.items.map((i) => ({ note_id: i.noteId, version: i.version, embedding: toSql(i.embedding) })))],
  );
  return rowCount;
}

/** Drops vectors of an abandoned rebuild (another model, or a run that never switched). */
export async function clearNextEmbeddings(tx: Queryable): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE note_versions SET embedding_next = NULL WHERE embedding_next IS NOT NULL`,
  );
  return rowCount;
}

/**
 * The switch: every rebuilt vector becomes the live one in this one statement (and transaction),
 * except for notes erased meanwhile, whose rebuilt vectors are dropped instead.
 */
export async function promoteNextEmbeddings(tx: Queryable): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE note_versions v SET embedding = v.embedding_next, embedding_next = NULL
       FROM notes n
      WHERE n.tenant_id = v.tenant_id AND n.note_id = v.note_id AND n.status <> 'erased' AND v.embedding_next IS NOT NULL`,
  );
  await clearNextEmbeddings(tx);
  return rowCount;
}

export interface EmbeddingProjection {
  model: string | null;
  dimension: number | null;
  generation: number;
  lastReindex: string | null;
  switchedAt: string | null;
  pendingModel: string | null;
  pendingReindex: string | null;
}

const ProjectionRow = z
  .object({
    model: z.string().nullable(),
    dimension: intColumn.nullable(),
    generation: intColumn,
    last_reindex: z.string().nullable(),
    switched_at: isoColumnNullable,
    pending_model: z.string().nullable(),
    pending_reindex: z.string().nullable(),
  })
  .transform((r): EmbeddingProjection => ({
    model: r.model,
    dimension: r.dimension,
    generation: r.generation,
    lastReindex: r.last_reindex,
    switchedAt: r.switched_at,
    pendingModel: r.pending_model,
    pendingReindex: r.pending_reindex,
  }));

/** The tenant's projection marker; undefined before its first rebuild (vectors of whichever model the worker had). */
export async function selectEmbeddingProjection(tx: Queryable): Promise<EmbeddingProjection | undefined> {
  const { rows } = await tx.query(
    `SELECT model, dimension, generation, last_reindex, switched_at, pending_model, pending_reindex FROM embedding_projections FOR UPDATE`,
  );
  return rows[0] === undefined ? undefined : ProjectionRow.parse(rows[0]);
}

export async function markReindexPending(
  tx: Queryable,
  p: { tenantId: string; model: string; reindexId: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO embedding_projections (tenant_id, pending_model, pending_reindex, pending_since) VALUES ($1, $2, $3, now())
     ON CONFLICT (tenant_id) DO UPDATE SET pending_model = $2, pending_reindex = $3, pending_since = now(), updated_at = now()`,
    [p.tenantId, p.model, p.reindexId],
  );
}

export async function markReindexSwitched(
  tx: Queryable,
  p: { tenantId: string; model: string; dimension: number; reindexId: string },
): Promise<number> {
  const { rows } = await tx.query(
    `UPDATE embedding_projections
        SET model = $2, dimension = $3, generation = generation + 1, last_reindex = $4, switched_at = now(),
            pending_model = NULL, pending_reindex = NULL, pending_since = NULL, updated_at = now()
      WHERE tenant_id = $1
      RETURNING generation`,
    [p.tenantId, p.model, p.dimension, p.reindexId],
  );
  return z.object({ generation: intColumn }).parse(rows[0]).generation;
}
