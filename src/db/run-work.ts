import { toSql } from 'pgvector';
import { z } from 'zod';
import type { NoteScope, NoteVersion } from '../contracts/note.ts';
import type { Queryable } from './db.ts';
import { NoteVersionRow, VERSION_COLUMNS } from './notes/version-row.ts';
import { intColumn } from './rows.ts';

/**
 * The working state of a consolidation run (migration 0006): its sampled episodes by batch,
 * each batch's validated operations, and the proposals validation rejected. All calls run
 * inside `withTenant`, so row-level security scopes them.
 */

export interface PlannedEpisodeRow {
  seq: number;
  batchNo: number;
  key: string;
  parts: Array<{ objectKey: string; lines: number[] }>;
  weight: number;
}

const Parts = z.array(z.object({ objectKey: z.string(), lines: z.array(z.number().int()) }));

// Row schemas are built once: building a zod schema costs more than parsing one row with it.
const EpisodeRow = z
  .object({ episode_key: z.string(), parts: Parts })
  .transform((x) => ({ key: x.episode_key, parts: x.parts }));
const BatchRow = z
  .object({ batch_no: intColumn, ops: z.array(z.unknown()), summary: z.unknown() })
  .transform((x) => ({ batchNo: x.batch_no, ops: x.ops, summary: x.summary }));
const StoredBatchRow = z.object({ ops: z.array(z.unknown()), summary: z.unknown() });

export async function insertRunEpisodes(
  tx: Queryable,
  p: { tenantId: string; runId: string; episodes: PlannedEpisodeRow[] },
): Promise<void> {
  if (p.episodes.length === 0) return;
  // One statement for the whole plan: jsonb_to_recordset works the same on both drivers.
  await tx.query(
    `INSERT INTO run_episodes (tenant_id, run_id, seq, batch_no, episode_key, parts, weight)
     SELECT $1, $2, x.seq, x.batch_no, x.episode_key, x.parts, x.weight
       FROM jsonb_to_recordset($3::jsonb) AS x(seq int, batch_no int, episode_key text, parts jsonb, weight float8)
     ON CONFLICT DO NOTHING`,
    [
      p.tenantId,
      p.runId,
      JSON.stringify(
        p.episodes.map((e) => ({
          seq: e.seq,
          batch_no: e.batchNo,
          episode_key: e.key,
          parts: e.parts,
          weight: e.weight,
        })),
      ),
    ],
  );
}

export async function selectPlanSummary(
  tx: Queryable,
  p: { runId: string },
): Promise<{ sampled: number; batches: number }> {
  const { rows } = await tx.query(
    `SELECT count(*) AS sampled, coalesce(max(batch_no) + 1, 0) AS batches FROM run_episodes WHERE run_id = $1`,
    [p.runId],
  );
  return z.object({ sampled: intColumn, batches: intColumn }).parse(rows[0]);
}

export async function selectBatchEpisodes(
  tx: Queryable,
  p: { runId: string; batchNo: number },
): Promise<Array<{ key: string; parts: z.infer<typeof Parts> }>> {
  const { rows } = await tx.query(
    `SELECT episode_key, parts FROM run_episodes WHERE run_id = $1 AND batch_no = $2 ORDER BY seq`,
    [p.runId, p.batchNo],
  );
  return rows.map((r) => EpisodeRow.parse(r));
}

export interface StoredBatch {
  ops: unknown[];
  summary: unknown;
}

export async function insertRunBatch(
  tx: Queryable,
  p: { tenantId: string; runId: string; batchNo: number } & StoredBatch,
): Promise<void> {
  await tx.query(
    `INSERT INTO run_batches (tenant_id, run_id, batch_no, ops, summary) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING`,
    [p.tenantId, p.runId, p.batchNo, JSON.stringify(p.ops), JSON.stringify(p.summary)],
  );
}

export async function selectRunBatch(
  tx: Queryable,
  p: { runId: string; batchNo: number },
): Promise<StoredBatch | undefined> {
  const { rows } = await tx.query(`SELECT ops, summary FROM run_batches WHERE run_id = $1 AND batch_no = $2`, [
    p.runId,
    p.batchNo,
  ]);
  return rows[0] === undefined ? undefined : StoredBatchRow.parse(rows[0]);
}

export async function selectRunBatches(
  tx: Queryable,
  p: { runId: string },
): Promise<Array<StoredBatch & { batchNo: number }>> {
  const { rows } = await tx.query(
    `SELECT batch_no, ops, summary FROM run_batches WHERE run_id = $1 ORDER BY batch_no`,
    [p.runId],
  );
  return rows.map((r) => BatchRow.parse(r));
}

export async function insertRejections(
  tx: Queryable,
  p: {
    tenantId: string;
    runId: string;
    batchNo: number;
    rejections: Array<{ rule: string; detail: string; proposal: unknown }>;
  },
): Promise<void> {
  if (p.rejections.length === 0) return;
  await tx.query(
    `INSERT INTO run_rejections (tenant_id, run_id, batch_no, seq, rule, detail, proposal)
     SELECT $1, $2, $3, x.seq, x.rule, x.detail, x.proposal
       FROM jsonb_to_recordset($4::jsonb) AS x(seq int, rule text, detail text, proposal jsonb)
     ON CONFLICT DO NOTHING`,
    [p.tenantId, p.runId, p.batchNo, JSON.stringify(p.rejections.map((r, seq) => ({ seq, ...r })))],
  );
}

/**
 * Current versions in the given scopes, any status but erased: reconciliation reinforces and
 * contends with the active ones and recognises evidence it has already learned from in all.
 */
export async function selectCurrentInScopes(tx: Queryable, p: { scopes: NoteScope[] }): Promise<NoteVersion[]> {
  if (p.scopes.length === 0) return [];
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.status <> 'erased'
        AND (v.scope_level, v.scope_key) IN (SELECT x.level, x.key FROM jsonb_to_recordset($1::jsonb) AS x(level text, key text))`,
    [JSON.stringify(p.scopes)],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

/**
 * A version `v` whose claim still needs a vector of the model bound to `param`: none yet, or a
 * copy another model produced (or one without a stamp). Erased notes and scrubbed claims never do.
 */
const lacksVectorOf = (param: string) => `(v.embedding IS NULL OR v.embedding_model IS DISTINCT FROM ${param})
        AND v.claim <> '[erased]'
        AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.tenant_id = v.tenant_id AND n.note_id = v.note_id AND n.status = 'erased')`;

/**
 * Versions this run wrote whose claim has no vector of `model` yet: not embedded, or holding a
 * vector copied from an older version that another model produced (or one without a stamp).
 */
export async function selectUnembedded(
  tx: Queryable,
  p: { runId: string; limit: number; model: string },
): Promise<Array<{ noteId: string; version: number; claim: string }>> {
  const { rows } = await tx.query(
    `SELECT v.note_id, v.version, v.claim FROM note_versions v
      WHERE v.created_by_run = $1 AND ${lacksVectorOf('$3')}
      ORDER BY v.note_id, v.version LIMIT $2`,
    [p.runId, p.limit, p.model],
  );
  return rows.map((r) =>
    z
      .object({ note_id: z.string(), version: intColumn, claim: z.string() })
      .transform((x) => ({ noteId: x.note_id, version: x.version, claim: x.claim }))
      .parse(r),
  );
}

/** Stores a version's live vector with the model that produced it. */
export async function updateEmbedding(
  tx: Queryable,
  p: { noteId: string; version: number; embedding: number[]; model: string },
): Promise<void> {
  // An erasure may have erased the note or scrubbed the version since its claim was read: no vector of the old claim.
  await tx.query(
    `UPDATE note_versions v SET embedding = $3::vector, embedding_model = $4
      WHERE v.note_id = $1 AND v.version = $2 AND v.claim <> '[erased]'
        AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.tenant_id = v.tenant_id AND n.note_id = v.note_id AND n.status = 'erased')`,
    [p.noteId, p.version, toSql(p.embedding), p.model],
  );
}

/** Notes currently superseded by `noteId`: what rolling that note back must restore. */
export async function selectSupersededBy(tx: Queryable, p: { noteId: string }): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.status = 'superseded' AND v.superseded_by = $1
      ORDER BY n.note_id`,
    [p.noteId],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

/**
 * Runs of the tenant (a consolidation or a rollback) whose committed claims still have no vector
 * of `model` (none at all, or a copy another model produced): their indexing step failed or was
 * never started: the versions `selectUnembedded` gives that step.
 */
export async function selectRunsMissingVectors(
  tx: Queryable,
  p: { model: string },
): Promise<Array<{ runId: string; pending: number }>> {
  const { rows } = await tx.query(
    `SELECT v.created_by_run AS run_id, count(*) AS pending FROM note_versions v
      WHERE v.created_by_run IS NOT NULL AND ${lacksVectorOf('$1')}
      GROUP BY v.created_by_run ORDER BY v.created_by_run`,
    [p.model],
  );
  return rows.map((r) =>
    z
      .object({ run_id: z.string(), pending: intColumn })
      .transform((x) => ({ runId: x.run_id, pending: x.pending }))
      .parse(r),
  );
}
