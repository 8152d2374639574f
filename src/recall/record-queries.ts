import { z } from 'zod';
import type { TimeWindow } from '../../policies/query-time.ts';
import { RECORD_KINDS } from '../contracts/raw-record.ts';
import type { NoteScope } from '../contracts/note.ts';
import { isoColumn, PREPARED, type Queryable } from '../db/index.ts';
import {
  RECORD_BM25,
  RECORD_TEXT_POOL_FACTOR,
  RECORD_TEXT_POOL_MAX,
  RECORD_TIME_SCAN_MAX,
  REPLY_KINDS,
} from '../../policies/record-recall.ts';
import { vectorParam } from './vector-param.ts';

/** A raw record from the record index (migration 0011), with its distance to the query and its ts_rank. */
export interface RecordRow {
  recordId: string;
  objectKey: string;
  line: number;
  contentHash: string;
  sessionId: string;
  userId: string | null;
  agentId: string;
  kind: (typeof RECORD_KINDS)[number];
  observedAt: string;
  speaker: string;
  text: string;
  /** The text told as a note (migration 0022), or null on a row indexed before it. */
  told: string | null;
  distance: number | null;
  textRank: number;
}

export interface RecordParams {
  tenantId: string;
  /** Records observed after this instant are not returned (now, or asOf). */
  at: string;
  scopes: NoteScope[] | undefined;
  queryVector: number[];
  queryText: string;
  /** The embedder of the query: only vectors of the same model are compared. */
  model: string;
  limit: number;
  /** A user-bound API token's user: only that user's records ($8). */
  userId?: string | undefined;
}

/** The full-text read's parameters: with no query vector yet, its rows carry no distance (`selectRecordDistances`). */
export type RecordTextParams = Omit<RecordParams, 'queryVector'> & { queryVector: number[] | null };

/*
 * Parameters: $1 tenant, $2 at, $3 scopes (jsonb or null), $4 vector, $5 text, $6 limit, $7 model.
 * A scope admits a record by the user, agent or task type it belongs to; the tenant scope admits all.
 */
const ELIGIBLE = `r.tenant_id = $1::text
    AND r.observed_at <= $2::timestamptz
    AND ($3::jsonb IS NULL OR EXISTS (
         SELECT 1 FROM jsonb_to_recordset($3::jsonb) AS x(level text, key text)
          WHERE x.level = 'tenant' OR (x.level = 'user' AND x.key = r.user_id)
             OR (x.level = 'agent' AND x.key = r.agent_id) OR (x.level = 'task_type' AND x.key = r.task_type)))`;

const eligible = (user: boolean): string => `${ELIGIBLE}${user ? ' AND r.user_id = $8::text' : ''}`;

// Any of the query's content words, as note recall does (src/recall/queries.ts).
const TSQUERY = `replace(plainto_tsquery('simple', $5::text)::text, ' & ', ' | ')::tsquery`;

/** The columns a candidate is returned with, read only for the rows a channel returns. */
const DISTANCE = `CASE WHEN r.embedding_model = $7::text THEN (r.embedding <=> $4::vector)::float8 END`;
const SELECTED = `r.record_id, r.object_key, r.line, r.content_hash, r.session_id, r.user_id, r.agent_id, r.kind,
       r.observed_at, r.speaker, r.text, r.told,
       ${DISTANCE} AS distance`;

/** The chosen ids joined back to their rows (the tenant's primary key). */
const CHOSEN = `JOIN record_index r ON r.tenant_id = $1::text AND r.record_id = c.record_id`;

/**
 * Nearest records by cosine; `exact` forces an exact scan (see the note channel's twin). The scan
 * sorts ids alone; the returned rows' columns and ts_rank are read for the `limit` chosen only.
 * With `withKnown`, the same statement also returns the distances of the records named by the
 * parameter after the common ones (rows another channel read without the vector): their id and
 * distance only, `known` true, after the nearest.
 */
export function recordVectorSql(exact: boolean, user = false, withKnown = false): string {
  const order = exact ? `(r.embedding <=> $4::vector) + 0` : `r.embedding <=> $4::vector`;
  const nearest = `WITH c AS MATERIALIZED (
    SELECT r.record_id
      FROM record_index r
     WHERE r.embedding IS NOT NULL AND r.embedding_model = $7::text AND ${eligible(user)}
     ORDER BY ${order}
     LIMIT $6::int)
  SELECT ${SELECTED}, ts_rank(r.fts, ${TSQUERY})::float8 AS text_rank`;
  if (!withKnown)
    return `${nearest}
    FROM c ${CHOSEN}
   ORDER BY distance, r.record_id`;
  return `${nearest}, false AS known
    FROM c ${CHOSEN}
  UNION ALL
  SELECT r.record_id, ${'NULL, '.repeat(11)}${DISTANCE}, NULL, true
    FROM record_index r
   WHERE r.tenant_id = $1::text AND r.record_id = ANY($${user ? 9 : 8}::text[])
     AND r.embedding IS NOT NULL AND r.embedding_model = $7::text
  ORDER BY known, distance, record_id`;
}

/**
 * Records by full text, ranked by BM25 (policies/record-recall.ts): PostgreSQL's ts_rank counts
 * how often any query word occurs and knows nothing of how rare it is, so a turn full of "Caroline"
 * and "like" outranked the one turn that says "pottery". Rows that match any query word are
 * pooled by ts_rank (POOL_FACTOR times the limit), then ranked by BM25 with each word's document
 * frequency counted over the tenant's eligible records. When the pool holds every match (and the
 * query is words, not phrases), a record holding a word is in the pool, so the word is counted
 * there; else through the GIN index, a scan per word. Document length
 * is the number of distinct words (tsvector length), against the pool's mean (computed once: inlined,
 * the planner recomputed it for every pooled row, a quadratic walk over the pool). The pool keeps ids
 * and tsvectors only; the term weights are summed in one join of the pooled rows' query words (each
 * tsvector cut to them by weight: setweight marks them, ts_filter keeps them, so a row's other words
 * are never unnested) with the words' frequencies (a correlated sum per pooled row built a hash of
 * that row's words each time: 10 of a 15 ms statement when the speaker's name put every record in
 * the pool); the other columns (and the distance to the query) are read for the `limit` rows returned.
 * Extra parameters after the common ones (and the user's, $8, when there is one): k1, b, the pool size.
 */
export function recordTextSql(user = false): string {
  const [k1, b, pool] = user ? ['$9', '$10', '$11'] : ['$8', '$9', '$10'];
  return `WITH q AS (
    SELECT ${TSQUERY} AS q, tsvector_to_array(to_tsvector('simple', $5::text)) AS terms),
  pool AS MATERIALIZED (
    SELECT r.record_id, r.fts
      FROM record_index r, q
     WHERE r.fts @@ q.q AND ${eligible(user)}
     ORDER BY ts_rank(r.fts, q.q) DESC, r.record_id
     LIMIT ${pool}::int),
  n AS MATERIALIZED (SELECT count(*)::float8 AS n FROM record_index r WHERE ${eligible(user)}),
  whole AS MATERIALIZED (
    SELECT (SELECT count(*) FROM pool) < ${pool}::int AND strpos(q.q::text, '<->') = 0 AS holds_all FROM q),
  df AS MATERIALIZED (
    SELECT t.term,
           (CASE WHEN whole.holds_all
                 THEN (SELECT count(*) FROM pool p WHERE p.fts @@ to_tsquery('simple', quote_literal(t.term)))
                 ELSE (SELECT count(*) FROM record_index r
                        WHERE r.fts @@ to_tsquery('simple', quote_literal(t.term)) AND ${eligible(user)}) END)::float8 AS df
      FROM q, whole, unnest(q.terms) AS t(term)),
  dl AS MATERIALIZED (SELECT greatest(avg(length(p.fts)), 1)::float8 AS avgdl FROM pool p),
  tf AS MATERIALIZED (
    SELECT p.record_id,
           sum(ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5))
               * (cardinality(u.positions) * (${k1}::float8 + 1))
               / (cardinality(u.positions) + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * length(p.fts) / dl.avgdl)))::float8 AS text_rank
      FROM pool p, q
      CROSS JOIN LATERAL unnest(ts_filter(setweight(setweight(p.fts, 'D'), 'A', q.terms), '{a}')) AS u(lexeme, positions, weights)
      JOIN df ON df.term = u.lexeme, n, dl
     GROUP BY p.record_id),
  c AS MATERIALIZED (
    SELECT p.record_id, tf.text_rank
      FROM pool p LEFT JOIN tf ON tf.record_id = p.record_id
     ORDER BY tf.text_rank DESC NULLS LAST, p.record_id
     LIMIT $6::int)
  SELECT ${SELECTED}, c.text_rank
    FROM c ${CHOSEN}
   ORDER BY c.text_rank DESC NULLS LAST, r.record_id`;
}

export const RECORD_TEXT_SQL = recordTextSql();

/**
 * The records observed in any of the windows (after the common parameters and the user's: the
 * windows' starts and ends as two arrays), those sharing most of the query's words first, then in
 * the order said: a question that names a day finds what was said that day though other days'
 * records are nearer it by meaning and by word (policies/query-time.ts). Read without the query's
 * vector, while it is being embedded, by a range of the (tenant, observed_at) index from the
 * first window's start to the last one's end (migration 0037); at most `RECORD_TIME_SCAN_MAX`
 * rows of it, the first said, are ranked, so a month of a busy tenant costs what a day does.
 */
export function recordTimeSql(user = false): string {
  const [from, to] = user ? ['$9', '$10'] : ['$8', '$9'];
  return `WITH w AS MATERIALIZED (
    SELECT r.record_id
      FROM record_index r
     WHERE ${eligible(user)}
       AND r.observed_at >= (SELECT min(f) FROM unnest(${from}::timestamptz[]) AS f)
       AND r.observed_at < (SELECT max(t) FROM unnest(${to}::timestamptz[]) AS t)
       AND EXISTS (SELECT 1 FROM unnest(${from}::timestamptz[], ${to}::timestamptz[]) AS w(f, t)
                    WHERE r.observed_at >= w.f AND r.observed_at < w.t)
     ORDER BY r.observed_at, r.record_id
     LIMIT ${RECORD_TIME_SCAN_MAX})
  SELECT ${SELECTED}, ts_rank(r.fts, ${TSQUERY})::float8 AS text_rank
    FROM w JOIN record_index r ON r.tenant_id = $1::text AND r.record_id = w.record_id
   ORDER BY text_rank DESC, r.observed_at, r.record_id
   LIMIT $6::int`;
}

export async function selectRecordsAtTimes(
  tx: Queryable,
  p: RecordTextParams,
  windows: readonly TimeWindow[],
): Promise<RecordRow[]> {
  if (windows.length === 0) return [];
  const args = [...params(p), windows.map((w) => w.from.toISOString()), windows.map((w) => w.to.toISOString())];
  const { rows } = await tx.query(recordTimeSql(p.userId !== undefined), args, PREPARED);
  return rows.map((r) => Row.parse(r));
}

const Row = z
  .object({
    record_id: z.string(),
    object_key: z.string(),
    line: z.number().int(),
    content_hash: z.string(),
    session_id: z.string(),
    user_id: z.string().nullable(),
    agent_id: z.string(),
    kind: z.enum(RECORD_KINDS),
    observed_at: isoColumn,
    speaker: z.string(),
    text: z.string(),
    told: z.string().nullable(),
    distance: z.number().nullable(),
    text_rank: z.number(),
  })
  .transform((r): RecordRow => ({
    recordId: r.record_id,
    objectKey: r.object_key,
    line: r.line,
    contentHash: r.content_hash,
    sessionId: r.session_id,
    userId: r.user_id,
    agentId: r.agent_id,
    kind: r.kind,
    observedAt: r.observed_at,
    speaker: r.speaker,
    text: r.text,
    told: r.told,
    distance: r.distance,
    textRank: r.text_rank,
  }));

function params(p: RecordTextParams): unknown[] {
  const scopes = p.scopes && p.scopes.length > 0 ? JSON.stringify(p.scopes) : null;
  const user = p.userId !== undefined ? [p.userId] : [];
  const vector = p.queryVector === null ? null : vectorParam(p.queryVector);
  return [p.tenantId, p.at, scopes, vector, p.queryText, p.limit, p.model, ...user];
}

export async function selectRecordVectorCandidates(
  tx: Queryable,
  p: RecordParams,
  exact: boolean,
): Promise<RecordRow[]> {
  return (await selectRecordVectorChannel(tx, p, exact, [])).rows;
}

/**
 * The nearest records (selectRecordVectorCandidates) and, in the same statement, the distances of
 * `known` records (selectRecordDistances' values): one round trip for both.
 */
export async function selectRecordVectorChannel(
  tx: Queryable,
  p: RecordParams,
  exact: boolean,
  known: readonly string[],
): Promise<{ rows: RecordRow[]; known: Map<string, number | null> }> {
  const folded = known.length > 0;
  const args = folded ? [...params(p), known] : params(p);
  const { rows } = await tx.query(recordVectorSql(exact, p.userId !== undefined, folded), args, PREPARED);
  const isKnown = (r: unknown) => (r as { known?: boolean }).known === true;
  // Every id asked for is answered: a record without a vector of the query's model has no distance (null).
  const distances = new Map<string, number | null>(known.map((id) => [id, null]));
  for (const r of rows.filter(isKnown).map((x) => RecordDistance.parse(x))) distances.set(r.record_id, r.distance);
  return { rows: rows.filter((r) => !isKnown(r)).map((r) => Row.parse(r)), known: distances };
}

export async function selectRecordTextCandidates(tx: Queryable, p: RecordTextParams): Promise<RecordRow[]> {
  if (p.queryText.trim() === '') return [];
  const bm25 = [RECORD_BM25.k1, RECORD_BM25.b, Math.min(RECORD_TEXT_POOL_MAX, p.limit * RECORD_TEXT_POOL_FACTOR)];
  const { rows } = await tx.query(recordTextSql(p.userId !== undefined), [...params(p), ...bm25], PREPARED);
  return rows.map((r) => Row.parse(r));
}

const RecordDistance = z.object({ record_id: z.string(), distance: z.number() });

/** The kinds a reply may be (REPLY_KINDS), as an SQL list: enum values, never input. */
const REPLY_KIND_LIST = [...REPLY_KINDS].map((k) => `'${k}'`).join(', ');

/**
 * The record that answers each record ending in a question (policies/record-recall.ts,
 * `endsAsking`): the next eligible record of its session, when another speaker said it and it is
 * a person's words (REPLY_KINDS). Parameters as the channels', with the asking records' ids in
 * place of the limit ($6); the index on (tenant, session, observed_at, record id) of migration
 * 0032 finds each in one probe.
 */
export function recordRepliesSql(user = false): string {
  return `SELECT ${SELECTED}, ts_rank(r.fts, ${TSQUERY})::float8 AS text_rank, q.record_id AS question_id
    FROM record_index q
    CROSS JOIN LATERAL (
      SELECT r.* FROM record_index r
       WHERE ${eligible(user)} AND r.session_id = q.session_id
         AND (r.observed_at, r.record_id) > (q.observed_at, q.record_id)
       ORDER BY r.observed_at, r.record_id
       LIMIT 1) r
   WHERE q.tenant_id = $1::text AND q.record_id = ANY($6::text[]) AND r.speaker <> q.speaker
     AND r.kind IN (${REPLY_KIND_LIST})`;
}

/**
 * The reply to each of the asking records (by its record id); one nobody answered has none. Read
 * before the query's vector is there (the full-text rows'), a reply carries no distance.
 */
export async function selectRecordReplies(
  tx: Queryable,
  p: RecordTextParams,
  questionIds: readonly string[],
): Promise<Map<string, RecordRow>> {
  if (questionIds.length === 0) return new Map();
  const args = params(p);
  args[5] = questionIds;
  const { rows } = await tx.query(recordRepliesSql(p.userId !== undefined), args, PREPARED);
  return new Map(rows.map((r) => [z.object({ question_id: z.string() }).parse(r).question_id, Row.parse(r)]));
}

/**
 * Cosine distances of the given records to the query vector (only those embedded by the query's
 * model), for rows the full-text statement read before the vector was there: the expression the
 * channels compute, so the same values.
 */
export async function selectRecordDistances(
  tx: Queryable,
  p: Pick<RecordParams, 'tenantId' | 'model' | 'queryVector'>,
  recordIds: readonly string[],
): Promise<Map<string, number>> {
  if (recordIds.length === 0) return new Map();
  const { rows } = await tx.query(
    `SELECT r.record_id, (r.embedding <=> $2::vector)::float8 AS distance
       FROM record_index r
      WHERE r.tenant_id = $1::text AND r.record_id = ANY($4::text[])
        AND r.embedding IS NOT NULL AND r.embedding_model = $3::text`,
    [p.tenantId, vectorParam(p.queryVector), p.model, recordIds],
    PREPARED,
  );
  return new Map(rows.map((r) => RecordDistance.parse(r)).map((r) => [r.record_id, r.distance]));
}
