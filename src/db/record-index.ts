import { toSql } from 'pgvector';
import { z } from 'zod';
import type { Queryable } from './db.ts';
import { intColumn } from './rows.ts';

/**
 * Queries of the raw-record index and the embedding cache (migration 0011). Each takes
 * `(tx, params)` inside withTenant; row-level security scopes it to that tenant.
 */

/** One record as the index stores it (text already redacted). */
export interface IndexedRecord {
  recordId: string;
  objectKey: string;
  line: number;
  contentHash: string;
  sessionId: string;
  userId: string | null;
  agentId: string;
  taskType: string | null;
  kind: string;
  observedAt: string;
  speaker: string;
  text: string;
  /** The text told as a note would tell it (`toldText`): what recall matches words in. */
  told: string;
  /** The record whose words the vector takes in besides its own (`embeddedText`), if any. */
  contextRecordId: string | null;
  /** sha256 of the string the vector is made of: the embedding cache's key. */
  textHash: string;
  embedding: number[];
}

const COLUMNS = [
  'record_id',
  'object_key',
  'line',
  'content_hash',
  'session_id',
  'user_id',
  'agent_id',
  'task_type',
  'kind',
  'observed_at',
  'speaker',
  'text',
  'told',
  'context_record_id',
  'text_hash',
  'embedding',
] as const;

/** Inserts records not indexed yet (a retry or an overlapping window inserts nothing twice); returns how many were new. */
export async function insertIndexedRecords(
  tx: Queryable,
  p: { tenantId: string; model: string; form: number; records: readonly IndexedRecord[] },
): Promise<number> {
  if (p.records.length === 0) return 0;
  const cols = (pick: (r: IndexedRecord) => unknown) => p.records.map(pick);
  const { rowCount } = await tx.query(
    `INSERT INTO record_index (tenant_id, embedding_model, vector_form, ${COLUMNS.join(', ')})
     SELECT $1, $2, $19, ${COLUMNS.map((c) => (c === 'embedding' ? 'x.embedding::vector' : `x.${c}`)).join(', ')}
       FROM unnest($3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                   $11::text[], $12::timestamptz[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
                   $18::text[])
            AS x(${COLUMNS.join(', ')})
     ON CONFLICT (tenant_id, record_id) DO NOTHING`,
    [
      p.tenantId,
      p.model,
      cols((r) => r.recordId),
      cols((r) => r.objectKey),
      cols((r) => r.line),
      cols((r) => r.contentHash),
      cols((r) => r.sessionId),
      cols((r) => r.userId),
      cols((r) => r.agentId),
      cols((r) => r.taskType),
      cols((r) => r.kind),
      cols((r) => r.observedAt),
      cols((r) => r.speaker),
      cols((r) => r.text),
      cols((r) => r.told),
      cols((r) => r.contextRecordId),
      cols((r) => r.textHash),
      cols((r) => toSql(r.embedding)),
      p.form,
    ],
  );
  return rowCount;
}

/**
 * Drops the rows of these records whose vector is of an older form than `form`, so that they are
 * inserted again in it (a projection is never edited); returns how many went.
 */
export async function deleteOlderForms(
  tx: Queryable,
  p: { recordIds: readonly string[]; form: number },
): Promise<number> {
  if (p.recordIds.length === 0) return 0;
  const { rowCount } = await tx.query(
    `DELETE FROM record_index WHERE record_id = ANY($1::text[]) AND vector_form < $2`,
    [p.recordIds, p.form],
  );
  return rowCount;
}

/** The vector form of each of these records the index holds (records it does not hold are absent). */
export async function selectIndexedForms(
  tx: Queryable,
  p: { recordIds: readonly string[] },
): Promise<Map<string, number>> {
  if (p.recordIds.length === 0) return new Map();
  const { rows } = await tx.query(`SELECT record_id, vector_form FROM record_index WHERE record_id = ANY($1::text[])`, [
    p.recordIds,
  ]);
  const Form = z.object({ record_id: z.string(), vector_form: z.number().int() });
  return new Map(rows.map((r) => Form.parse(r)).map((r) => [r.record_id, r.vector_form]));
}

const LastTurn = z.object({ session_id: z.string(), record_id: z.string(), speaker: z.string(), text: z.string() });

/**
 * For each given record, the record indexed just before it in its session (by time, then id),
 * keyed by session: what an earlier append said before a session's first record in an object.
 */
export async function selectLastTurnsBefore(
  tx: Queryable,
  p: { tenantId: string; records: readonly { sessionId: string; observedAt: string; recordId: string }[] },
): Promise<Map<string, { recordId: string; speaker: string; text: string }>> {
  if (p.records.length === 0) return new Map();
  const { rows } = await tx.query(
    `SELECT f.session_id, t.record_id, t.speaker, t.text
       FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS f(session_id, observed_at, record_id)
       CROSS JOIN LATERAL (
         SELECT r.record_id, r.speaker, r.text FROM record_index r
          WHERE r.tenant_id = $1 AND r.session_id = f.session_id
            AND (r.observed_at, r.record_id) < (f.observed_at, f.record_id)
          ORDER BY r.observed_at DESC, r.record_id DESC LIMIT 1) t`,
    [
      p.tenantId,
      p.records.map((r) => r.sessionId),
      p.records.map((r) => r.observedAt),
      p.records.map((r) => r.recordId),
    ],
  );
  return new Map(
    rows.map((r) => {
      const row = LastTurn.parse(r);
      return [row.session_id, { recordId: row.record_id, speaker: row.speaker, text: row.text }];
    }),
  );
}

/** Which of these archive objects were indexed to their end in `form` (or a newer one). */
export async function selectIndexedObjects(
  tx: Queryable,
  p: { objectKeys: readonly string[]; form: number },
): Promise<Set<string>> {
  if (p.objectKeys.length === 0) return new Set();
  const { rows } = await tx.query(
    `SELECT object_key FROM record_index_objects WHERE object_key = ANY($1::text[]) AND vector_form >= $2`,
    [p.objectKeys, p.form],
  );
  return new Set(rows.map((r) => z.object({ object_key: z.string() }).parse(r).object_key));
}

/**
 * Marks an object indexed to its end in `form`, in place of a mark of an older form. Its rows
 * still of an older form go: their records were read to the end and none was indexed again
 * (the index no longer keeps such a record), so no row of an older form outlives the mark.
 */
export async function insertIndexedObject(
  tx: Queryable,
  p: { tenantId: string; objectKey: string; records: number; form: number },
): Promise<void> {
  const older = await tx.query(`DELETE FROM record_index_objects WHERE object_key = $1 AND vector_form < $2`, [
    p.objectKey,
    p.form,
  ]);
  // Only an object marked in an older form can hold rows of one: a new object's rows are not walked.
  if (older.rowCount > 0)
    await tx.query(`DELETE FROM record_index WHERE object_key = $1 AND vector_form < $2`, [p.objectKey, p.form]);
  await tx.query(
    `INSERT INTO record_index_objects (tenant_id, object_key, records, vector_form) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [p.tenantId, p.objectKey, p.records, p.form],
  );
}

/** A rebuild's first step: the tenant's projection goes (the embedding cache stays, so nothing is embedded twice). */
export async function deleteRecordIndex(tx: Queryable): Promise<{ records: number; objects: number }> {
  const records = (await tx.query(`DELETE FROM record_index`)).rowCount;
  const objects = (await tx.query(`DELETE FROM record_index_objects`)).rowCount;
  return { records, objects };
}

const Cached = z.object({ content_hash: z.string(), embedding: z.string() });

/** Cached vectors of these hashes under one model. */
export async function selectCachedEmbeddings(
  tx: Queryable,
  p: { model: string; hashes: readonly string[] },
): Promise<Map<string, number[]>> {
  if (p.hashes.length === 0) return new Map();
  const { rows } = await tx.query(
    `SELECT content_hash, embedding::text AS embedding FROM embedding_cache WHERE model = $1 AND content_hash = ANY($2::text[])`,
    [p.model, p.hashes],
  );
  return new Map(
    rows.map((r) => {
      const row = Cached.parse(r);
      return [row.content_hash, JSON.parse(row.embedding) as number[]];
    }),
  );
}

export async function insertCachedEmbeddings(
  tx: Queryable,
  p: { tenantId: string; model: string; items: ReadonlyArray<{ hash: string; embedding: number[] }> },
): Promise<void> {
  if (p.items.length === 0) return;
  await tx.query(
    `INSERT INTO embedding_cache (tenant_id, model, content_hash, embedding)
     SELECT $1, $2, x.h, x.e::vector FROM unnest($3::text[], $4::text[]) AS x(h, e)
     ON CONFLICT DO NOTHING`,
    [p.tenantId, p.model, p.items.map((i) => i.hash), p.items.map((i) => toSql(i.embedding))],
  );
}

const Erased = z.object({ records: intColumn, objects: intColumn, cached: intColumn, hashes: z.array(z.string()) });

/**
 * Erasure: drops every indexed row of the objects that held the subject's records (they are
 * rewritten under new keys, so the next indexing reads them afresh) or a record whose vector
 * took in one of the subject's as the turn before it (indexed again without it), the bookkeeping
 * of those objects, and the cached vectors of the subject's texts and of those records'. Returns
 * the hashes of those embedded strings (a record is embedded as a note would tell it, which the
 * subject's words alone do not give back), so the verification scan can check the cache once the
 * rows are gone.
 * A string another user's record is embedded as too (an agent's stock reply, spoken by its role)
 * is not the subject's own: its vector stays, and the next indexing of that record needs it.
 */
export async function deleteSubjectFromRecordIndex(
  tx: Queryable,
  p: { recordIds: readonly string[]; userId: string; needles: readonly string[] },
): Promise<{ records: number; objects: number; cached: number; hashes: string[] }> {
  const { rows } = await tx.query(
    `WITH said AS MATERIALIZED (
       SELECT record_id, object_key, text_hash FROM record_index
        WHERE record_id = ANY($1::text[]) OR user_id = $2
           OR EXISTS (SELECT 1 FROM unnest($3::text[]) x
                       WHERE length(x) > 0 AND strpos(text || ' ' || coalesce(told, ''), x) > 0)),
     -- The subject's rows and those whose vector took in one of them as the turn before.
     mine AS MATERIALIZED (
       SELECT * FROM said
        UNION
       SELECT record_id, object_key, text_hash FROM record_index
        WHERE context_record_id IN (SELECT record_id FROM said)
           OR context_record_id = ANY($1::text[])),
     own AS (
       SELECT DISTINCT m.text_hash FROM mine m
        WHERE NOT EXISTS (SELECT 1 FROM record_index o
                           WHERE o.text_hash = m.text_hash
                             AND NOT EXISTS (SELECT 1 FROM mine x WHERE x.record_id = o.record_id))),
     cached AS (DELETE FROM embedding_cache WHERE content_hash IN (SELECT text_hash FROM own) RETURNING 1),
     objects AS (DELETE FROM record_index_objects WHERE object_key IN (SELECT object_key FROM mine) RETURNING 1),
     records AS (DELETE FROM record_index WHERE object_key IN (SELECT object_key FROM mine) RETURNING 1)
     SELECT (SELECT count(*) FROM records) AS records, (SELECT count(*) FROM objects) AS objects,
            (SELECT count(*) FROM cached) AS cached,
            (SELECT coalesce(array_agg(text_hash), '{}') FROM own) AS hashes`,
    [p.recordIds, p.userId, p.needles],
  );
  return Erased.parse(rows[0]);
}
