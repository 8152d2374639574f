import { toSql } from 'pgvector';
import { z } from 'zod';
import type { NoteScope, NoteVersion } from '../contracts/note.ts';
import { NoteVersionRow, VERSION_COLUMNS, type Queryable } from '../db/index.ts';

/** A candidate row: the version, its cosine distance to the query (null: not embedded) and its ts_rank. */
export interface CandidateRow {
  version: NoteVersion;
  distance: number | null;
  textRank: number;
}

export interface CandidateParams {
  tenantId: string;
  /** The instant eligibility is judged at (now, or asOf). */
  at: string;
  /** true: judge from the version rows as of `at` (audits); false: from the current pointer. */
  pointInTime: boolean;
  scopes: NoteScope[] | undefined;
  queryVector: number[];
  /** Query text for the full-text match (content tokens, stop words removed). */
  queryText: string;
  limit: number;
  /** A user-bound API token's user: only notes scoped to that user or wider than a user ($7). */
  userId?: string | undefined;
}

export interface SqlOptions {
  /**
   * Keep the explicit tenant predicate. Tests turn it off to prove that row-level security
   * alone keeps other tenants out. @default true
   */
  tenantPredicate?: boolean;
  /** $7 is a user id: session notes and other users' notes are left out. */
  visibleToUser?: boolean;
}

const SCOPE_FILTER = (alias: string, opts: SqlOptions): string =>
  `($3::jsonb IS NULL OR (${alias}.scope_level, ${alias}.scope_key) IN
     (SELECT x.level, x.key FROM jsonb_to_recordset($3::jsonb) AS x(level text, key text)))` +
  (opts.visibleToUser
    ? ` AND (${alias}.scope_level IN ('agent', 'task_type', 'tenant')
          OR (${alias}.scope_level = 'user' AND ${alias}.scope_key = $7::text))`
    : '');

const tenantFilter = (alias: string, opts: SqlOptions): string =>
  opts.tenantPredicate === false ? `$1::text IS NOT NULL` : `${alias}.tenant_id = $1::text`;

/*
 * Eligibility as of an instant, for point-in-time reads (audits) over the version rows.
 * Parameters: $1 tenant, $2 at, $3 scopes (jsonb or null). A version row never changes status:
 * a later version does. So "active at T" is the status of the latest version written by T.
 * Notes erased since are excluded even from an audit: erasure wins over history.
 */
function pointInTimeEligibleSql(opts: SqlOptions): string {
  return `${tenantFilter('v', opts)}
        AND v.status = 'active'
        AND v.created_at <= $2::timestamptz
        AND NOT EXISTS (SELECT 1 FROM note_versions w
                         WHERE w.tenant_id = v.tenant_id AND w.note_id = v.note_id
                           AND w.version > v.version AND w.created_at <= $2::timestamptz)
        AND NOT EXISTS (SELECT 1 FROM notes e
                         WHERE e.tenant_id = v.tenant_id AND e.note_id = v.note_id AND e.status = 'erased')
        AND v.valid_from <= $2::timestamptz
        AND (v.valid_until IS NULL OR v.valid_until > $2::timestamptz)
        AND ${SCOPE_FILTER('v', opts)}`;
}

/*
 * Eligibility now, over the recall projection (migration 0013): it holds only current, active
 * versions, so what is left is the tenant, the validity window (which ends without a write)
 * and the scopes. The tenant predicate also prunes the scan to the tenant's hash partition.
 */
function currentEligibleSql(opts: SqlOptions): string {
  return `${tenantFilter('r', opts)}
        AND r.valid_from <= $2::timestamptz
        AND (r.valid_until IS NULL OR r.valid_until > $2::timestamptz)
        AND ${SCOPE_FILTER('r', opts)}`;
}

// plainto_tsquery ANDs every word, so a question would only match claims containing all of
// it; recall wants any of the query's content words, ranked by ts_rank. Its text form is
// quoted lexemes joined by ' & ', which a lexeme cannot contain, so swapping in ' | ' is safe.
const TSQUERY = `replace(plainto_tsquery('simple', $5::text)::text, ' & ', ' | ')::tsquery`;

/** The projection's chosen rows (CTE `c`: tenant_id, note_id, version, distance, text_rank) with their versions. */
const WITH_VERSIONS = `SELECT ${VERSION_COLUMNS}, c.distance, c.text_rank
    FROM c JOIN note_versions v ON v.tenant_id = c.tenant_id AND v.note_id = c.note_id AND v.version = c.version`;

/**
 * Nearest neighbours through an HNSW index. `exact` orders by an expression the index cannot
 * serve, forcing an exact scan of the tenant's eligible rows. Parameters $4 vector, $5 text, $6 limit.
 * Current reads search the projection's partition of the tenant; point-in-time reads the versions.
 */
export function vectorCandidatesSql(pointInTime: boolean, exact: boolean, opts: SqlOptions = {}): string {
  const a = pointInTime ? 'v' : 'r';
  const order = exact ? `(${a}.embedding <=> $4::vector) + 0` : `${a}.embedding <=> $4::vector`;
  // MATERIALIZED + re-sort: with relaxed_order the index may return neighbours slightly out of order.
  if (pointInTime)
    return `WITH c AS MATERIALIZED (
    SELECT ${VERSION_COLUMNS}, (v.embedding <=> $4::vector)::float8 AS distance,
           ts_rank(v.fts, ${TSQUERY})::float8 AS text_rank
      FROM note_versions v
     WHERE v.embedding IS NOT NULL
       AND ${pointInTimeEligibleSql(opts)}
     ORDER BY ${order}
     LIMIT $6::int)
  SELECT * FROM c ORDER BY distance, note_id`;
  return `WITH c AS MATERIALIZED (
    SELECT r.tenant_id, r.note_id, r.version, (r.embedding <=> $4::vector)::float8 AS distance,
           ts_rank(r.fts, ${TSQUERY})::float8 AS text_rank
      FROM note_recall r
     WHERE r.embedding IS NOT NULL
       AND ${currentEligibleSql(opts)}
     ORDER BY ${order}
     LIMIT $6::int)
  ${WITH_VERSIONS}
   ORDER BY c.distance, c.note_id`;
}

/** Full-text candidates through the GIN index; unembedded notes are reachable here. */
export function textCandidatesSql(pointInTime: boolean, opts: SqlOptions = {}): string {
  if (pointInTime)
    return `SELECT ${VERSION_COLUMNS}, (v.embedding <=> $4::vector)::float8 AS distance,
         ts_rank(v.fts, q.q)::float8 AS text_rank
    FROM note_versions v, (SELECT ${TSQUERY} AS q) q
   WHERE v.fts @@ q.q
     AND ${pointInTimeEligibleSql(opts)}
   ORDER BY text_rank DESC, v.note_id
   LIMIT $6::int`;
  return `WITH c AS MATERIALIZED (
    SELECT r.tenant_id, r.note_id, r.version, (r.embedding <=> $4::vector)::float8 AS distance,
           ts_rank(r.fts, q.q)::float8 AS text_rank
      FROM note_recall r, (SELECT ${TSQUERY} AS q) q
     WHERE r.fts @@ q.q
       AND ${currentEligibleSql(opts)}
     ORDER BY text_rank DESC, r.note_id
     LIMIT $6::int)
  ${WITH_VERSIONS}
   ORDER BY c.text_rank DESC, c.note_id`;
}

const Extra = z.object({ distance: z.number().nullable(), text_rank: z.number() });

function params(p: CandidateParams): unknown[] {
  return [
    p.tenantId,
    p.at,
    p.scopes && p.scopes.length > 0 ? JSON.stringify(p.scopes) : null,
    toSql(p.queryVector),
    p.queryText,
    p.limit,
    ...(p.userId !== undefined ? [p.userId] : []),
  ];
}

function userOptions(p: CandidateParams, opts: SqlOptions): SqlOptions {
  return p.userId !== undefined ? { ...opts, visibleToUser: true } : opts;
}

function parseRows(rows: unknown[]): CandidateRow[] {
  return rows.map((r) => {
    const extra = Extra.parse(r);
    return { version: NoteVersionRow.parse(r), distance: extra.distance, textRank: extra.text_rank };
  });
}

/**
 * pgvector iterative index scans: when the filter (tenant, status, validity) rejects what the
 * index returns, the scan continues instead of stopping at ef_search rows, so a small tenant
 * among large ones still gets its k neighbours. Transaction-local, like the tenant settings.
 */
export async function setIndexScanSettings(tx: Queryable, limit: number): Promise<void> {
  await tx.query(
    `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`,
    [indexScanSettings(limit)['hnsw.ef_search']],
  );
}

/** The same settings, for `withTenant`'s options (set with the tenant, no statement of their own). */
export function indexScanSettings(limit: number): Record<string, string> {
  return { 'hnsw.iterative_scan': 'relaxed_order', 'hnsw.ef_search': String(Math.min(1000, Math.max(40, limit))) };
}

export async function selectVectorCandidates(
  tx: Queryable,
  p: CandidateParams,
  exact: boolean,
  opts: SqlOptions = {},
): Promise<CandidateRow[]> {
  const { rows } = await tx.query(vectorCandidatesSql(p.pointInTime, exact, userOptions(p, opts)), params(p));
  return parseRows(rows);
}

export async function selectTextCandidates(
  tx: Queryable,
  p: CandidateParams,
  opts: SqlOptions = {},
): Promise<CandidateRow[]> {
  if (p.queryText.trim() === '') return [];
  const { rows } = await tx.query(textCandidatesSql(p.pointInTime, userOptions(p, opts)), params(p));
  return parseRows(rows);
}

/**
 * The index scan settings of `setIndexScanSettings`, and how many projection rows the tenant has,
 * counting no further than `cap` (an index-only walk of at most `cap` keys), in one statement:
 * recall pays one round trip for both.
 */
export async function setScanSettingsAndCount(
  tx: Queryable,
  p: { tenantId: string; limit: number; cap: number },
): Promise<number> {
  const { rows } = await tx.query(
    `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $3, true),
            (SELECT count(*)::int FROM (SELECT 1 FROM note_recall WHERE tenant_id = $1 LIMIT $2::int) x) AS n`,
    [p.tenantId, p.cap, String(Math.min(1000, Math.max(40, p.limit)))],
  );
  return z.object({ n: z.number() }).parse(rows[0]).n;
}

/**
 * The model that produced the tenant's stored vectors (migration 0008), or null when no reindex
 * recorded one yet (vectors then come from the configured embedder).
 */
export async function selectProjectionModel(tx: Queryable, tenantId: string): Promise<string | null> {
  const { rows } = await tx.query(`SELECT model FROM embedding_projections WHERE tenant_id = $1`, [tenantId]);
  return rows[0] === undefined ? null : z.object({ model: z.string().nullable() }).parse(rows[0]).model;
}
