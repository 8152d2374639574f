import { z } from 'zod';
import type { NoteScope, NoteVersion } from '../contracts/note.ts';
import { NoteVersionRow, PREPARED, VERSION_COLUMNS, type Queryable } from '../db/index.ts';
import { vectorParam } from './vector-param.ts';

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

/**
 * The parameters of a statement that need not wait for the query's vector (full text, standing
 * preferences): with none yet, its rows carry no distance until `selectNoteDistances`.
 */
export type TextParams = Omit<CandidateParams, 'queryVector'> & { queryVector: number[] | null };

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

/**
 * A version row's cosine distance to the query ($4), from its full-precision vector: the distance
 * every read returns, whichever table chose the row (the projection only orders, in half precision).
 * `+ 0` keeps the statements' final ORDER BY from matching note_versions' own HNSW index: a plan
 * that reads the versions in graph order and joins the chosen rows to them walks that whole graph
 * (the bench's forced read did, for 290 ms); the value is unchanged.
 */
const VERSION_DISTANCE = `((v.embedding <=> $4::vector) + 0)::float8`;

/**
 * The projection's chosen rows (CTE `c`: tenant_id, note_id, version, text_rank) with their
 * versions and distances. Statements over it order by the output column `distance`.
 */
const WITH_VERSIONS = `SELECT ${VERSION_COLUMNS}, ${VERSION_DISTANCE} AS distance, c.text_rank
    FROM c JOIN note_versions v ON v.tenant_id = c.tenant_id AND v.note_id = c.note_id AND v.version = c.version`;

/**
 * The cosine distance between a projection row's vector, kept in half precision (migration
 * 0031), and the query's in the same precision: the order the partition graphs serve, and the
 * exact read's. It names the dimension of the column. It only orders candidates: the distance a
 * row returns is its version's, in full precision (VERSION_DISTANCE).
 */
export function projectionOrder(dimension: number): string {
  if (!Number.isInteger(dimension) || dimension < 1)
    throw new Error(`a query vector's dimension must be a positive integer, got ${dimension}`);
  return `r.embedding <=> $4::vector::halfvec(${dimension})`;
}

/**
 * Nearest neighbours through an HNSW index. `exact` orders by an expression the index cannot
 * serve, forcing an exact scan of the tenant's eligible rows. Parameters $4 vector (of
 * `dimension` numbers), $5 text, $6 limit. Current reads search the projection's partition of the
 * tenant (its graph over half-precision vectors); point-in-time reads the versions.
 */
export function vectorCandidatesSql(
  pointInTime: boolean,
  exact: boolean,
  dimension: number,
  opts: SqlOptions = {},
): string {
  const nearest = pointInTime ? `v.embedding <=> $4::vector` : projectionOrder(dimension);
  // An exact read breaks ties by note id, so which of equally near rows make the limit does not
  // depend on the plan's scan order (the graph read cannot, and needs not: its order is approximate).
  const order = exact ? `(${nearest}) + 0` : nearest;
  // MATERIALIZED + re-sort: with relaxed_order the index may return neighbours slightly out of order.
  if (pointInTime)
    return `WITH c AS MATERIALIZED (
    SELECT ${VERSION_COLUMNS}, (v.embedding <=> $4::vector)::float8 AS distance,
           ts_rank(v.fts, ${TSQUERY})::float8 AS text_rank
      FROM note_versions v
     WHERE v.embedding IS NOT NULL
       AND ${pointInTimeEligibleSql(opts)}
     ORDER BY ${order}${exact ? ', v.note_id' : ''}
     LIMIT $6::int)
  SELECT * FROM c ORDER BY distance, note_id`;
  return `WITH c AS MATERIALIZED (
    SELECT r.tenant_id, r.note_id, r.version, ts_rank(r.fts, ${TSQUERY})::float8 AS text_rank
      FROM note_recall r
     WHERE r.embedding IS NOT NULL
       AND ${currentEligibleSql(opts)}
     ORDER BY ${order}${exact ? ', r.note_id' : ''}
     LIMIT $6::int)
  ${WITH_VERSIONS}
   ORDER BY distance, c.note_id`;
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
    SELECT r.tenant_id, r.note_id, r.version, ts_rank(r.fts, q.q)::float8 AS text_rank
      FROM note_recall r, (SELECT ${TSQUERY} AS q) q
     WHERE r.fts @@ q.q
       AND ${currentEligibleSql(opts)}
     ORDER BY text_rank DESC, r.note_id
     LIMIT $6::int)
  ${WITH_VERSIONS}
   ORDER BY c.text_rank DESC, c.note_id`;
}

/**
 * The current preference notes of the given users, most confident first. Parameters: $1 tenant,
 * $2 at, $3 scopes (as the other channels), $4 query vector (for the distance shown), $5 users
 * (text array), $6 limit.
 */
export const STANDING_PREFERENCES_SQL = `WITH c AS MATERIALIZED (
    SELECT r.tenant_id, r.note_id, r.version, 0::float8 AS text_rank
      FROM note_recall r
      JOIN note_versions pv ON pv.tenant_id = r.tenant_id AND pv.note_id = r.note_id AND pv.version = r.version
     WHERE pv.kind = 'preference'
       AND r.scope_level = 'user' AND r.scope_key = ANY($5::text[])
       AND ${currentEligibleSql({})}
     ORDER BY pv.confidence DESC, pv.last_confirmed_at DESC, r.note_id
     LIMIT $6::int)
  ${WITH_VERSIONS}
   ORDER BY v.confidence DESC, v.last_confirmed_at DESC, v.note_id`;

export async function selectStandingPreferences(
  tx: Queryable,
  p: TextParams,
  users: readonly string[],
  limit: number,
): Promise<CandidateRow[]> {
  const [tenant, at, scopes, vector] = params(p);
  const { rows } = await tx.query(STANDING_PREFERENCES_SQL, [tenant, at, scopes, vector, users, limit], PREPARED);
  return parseRows(rows);
}

const Extra = z.object({ distance: z.number().nullable(), text_rank: z.number() });

function params(p: TextParams): unknown[] {
  return [
    p.tenantId,
    p.at,
    p.scopes && p.scopes.length > 0 ? JSON.stringify(p.scopes) : null,
    p.queryVector === null ? null : vectorParam(p.queryVector),
    p.queryText,
    p.limit,
    ...(p.userId !== undefined ? [p.userId] : []),
  ];
}

function userOptions(p: TextParams, opts: SqlOptions): SqlOptions {
  return p.userId !== undefined ? { ...opts, visibleToUser: true } : opts;
}

function parseRows(rows: unknown[]): CandidateRow[] {
  return rows.map((r) => {
    const extra = Extra.parse(r);
    return { version: NoteVersionRow.parse(r), distance: extra.distance, textRank: extra.text_rank };
  });
}

/** The hnsw.ef_search recall asks for: pgvector's accepted range, at least its default of 40. */
const efSearchSetting = (efSearch: number): string => String(Math.min(1000, Math.max(40, Math.round(efSearch))));

/**
 * pgvector iterative index scans: when the filter (tenant, status, validity) rejects what the
 * index returns, the scan continues instead of stopping at ef_search rows, so a small tenant
 * among large ones still gets its k neighbours. Transaction-local, like the tenant settings.
 */
export async function setIndexScanSettings(tx: Queryable, limit: number): Promise<void> {
  await tx.query(
    `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`,
    [efSearchSetting(limit)],
  );
}

/** The same settings, for `withTenant`'s options (set with the tenant, no statement of their own). */
export function indexScanSettings(limit: number): Record<string, string> {
  return { 'hnsw.iterative_scan': 'relaxed_order', 'hnsw.ef_search': efSearchSetting(limit) };
}

export async function selectVectorCandidates(
  tx: Queryable,
  p: CandidateParams,
  exact: boolean,
  opts: SqlOptions = {},
): Promise<CandidateRow[]> {
  const sql = vectorCandidatesSql(p.pointInTime, exact, p.queryVector.length, userOptions(p, opts));
  const { rows } = await tx.query(sql, params(p), PREPARED);
  return parseRows(rows);
}

export async function selectTextCandidates(
  tx: Queryable,
  p: TextParams,
  opts: SqlOptions = {},
): Promise<CandidateRow[]> {
  if (p.queryText.trim() === '') return [];
  const { rows } = await tx.query(textCandidatesSql(p.pointInTime, userOptions(p, opts)), params(p), PREPARED);
  return parseRows(rows);
}

export interface VectorChannelPlan {
  /** hnsw.ef_search for the index read. */
  efSearch: number;
  /** The query vector's dimension, named by the projection's order (projectionOrder). */
  dimension: number;
  /** A tenant with at most this many projection rows is read exactly. */
  exactUpTo: number;
  /**
   * A tenant sparse in its partition is read exactly too, up to `upTo` rows: one holding less
   * than `shareBelow` of its partition's rows (`pg_class.reltuples`, the last VACUUM or ANALYZE).
   * Absent: only exactUpTo decides.
   */
  sparse?: { upTo: number; shareBelow: number } | undefined;
  /**
   * The read a recent count chose for this tenant (TenantSizes): the statement then runs it
   * without counting. Absent: the statement counts and chooses.
   */
  path?: 'exact' | 'hnsw' | undefined;
}

/**
 * The current-time vector channel in one statement (one round trip, one plan): the index scan
 * settings, the tenant's row count (an index-only walk of at most exactUpTo + 1 keys, or
 * sparse.upTo + 1), and the read, exact for a tenant of at most exactUpTo rows or sparse in its
 * partition (VectorChannelPlan.sparse), else through its partition's HNSW graph.
 * The two reads are gated by one-time filters on the count, so only one of them runs; the
 * gate is evaluated before the gated scan returns its first row, which is when pgvector reads
 * hnsw.ef_search and hnsw.iterative_scan, so the settings made in the same statement apply
 * (test/integration/recall.test.ts checks that they do). The first column, n, is the count; a LEFT JOIN keeps one row with it when no note qualifies.
 */
export function currentVectorChannelSql(
  plan: VectorChannelPlan & { limit: number },
  opts: SqlOptions = {},
  withKnown = false,
): string {
  // No ts_rank here: the exact read would compute it for every row of the tenant; it is
  // computed below for the rows chosen, from their full-text vectors carried along.
  const rows = (gate: string): string => `SELECT r.tenant_id, r.note_id, r.version,
           (${projectionOrder(plan.dimension)})::float8 AS near, r.fts
      FROM note_recall r
     WHERE r.embedding IS NOT NULL
       AND ${currentEligibleSql(opts)}
       AND ${gate}`;
  // With the path known, the gate only makes the settings come first (a one-time filter on s).
  const known = plan.path !== undefined;
  const gate = (exact: boolean) =>
    known ? `(SELECT ef_search FROM s) IS NOT NULL` : `${exact ? '' : 'NOT '}(SELECT exact FROM s)`;
  // The partition's graph serves projectionOrder. The exact read sorts by the half-precision
  // distance it has computed once per row; OFFSET 0 keeps that subquery apart, so the index
  // cannot serve it. Both return the rows' full-precision distances (VERSION_DISTANCE).
  // The graph read names its row limit (the value of $6) in its text: it may run under a generic
  // plan (planVectorRead), which knows no parameter's value and costs a LIMIT $6 as a tenth of
  // the rows; at 100k notes the graph then beat sorting the partitions by only 18% on paper
  // (3.6 times with the limit named), too near for the plan to stay put (docs/BENCHMARKS.md).
  const viaIndex = `(${rows(gate(false))}
     ORDER BY ${projectionOrder(plan.dimension)} LIMIT ${rowLimit(plan.limit)})`;
  const exactly = `(SELECT * FROM (${rows(gate(true))} OFFSET 0) e ORDER BY e.near, e.note_id LIMIT $6::int)`;
  const reads =
    plan.path === 'hnsw' ? viaIndex : plan.path === 'exact' ? exactly : `${viaIndex}\n    UNION ALL\n    ${exactly}`;
  // $6 stays in the statement (s.asked) when only the graph read, with its literal limit, runs.
  const channel = `WITH s AS MATERIALIZED (
    SELECT $6::int AS asked, set_config('hnsw.iterative_scan', 'relaxed_order', true) AS iterative,
           set_config('hnsw.ef_search', '${efSearchSetting(plan.efSearch)}', true) AS ef_search,
           k.n, ${known ? 'NULL::bool' : exactReadSql(plan)} AS exact
      FROM (SELECT ${known ? 'NULL::int' : tenantRowsSql(plan)} AS n, ${known || !plan.sparse ? 'NULL::float8' : PARTITION_ROWS} AS part) k),
  c AS MATERIALIZED (
    ${reads})
  SELECT s.n, s.exact, x.* FROM s LEFT JOIN LATERAL (
    SELECT ${VERSION_COLUMNS}, ${VERSION_DISTANCE} AS distance, ts_rank(c.fts, q.q)::float8 AS text_rank
      FROM c JOIN note_versions v ON v.tenant_id = c.tenant_id AND v.note_id = c.note_id AND v.version = c.version,
           (SELECT ${TSQUERY} AS q) q) x ON true
   ORDER BY x.distance, x.note_id`;
  if (!withKnown) return channel;
  const at = opts.visibleToUser ? 8 : 7;
  return `WITH chosen AS MATERIALIZED (${channel})
  SELECT false AS known, * FROM chosen
  UNION ALL
  ${KNOWN_DISTANCES_ROWS(at)}
  ORDER BY known, distance, note_id`;
}

/** A row limit written into a statement's text. */
const rowLimit = (limit: number): number => {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`a read's row limit must be a positive integer, got ${limit}`);
  return limit;
};

/** The count recall needs to choose its read: up to the larger of the two thresholds, plus one. */
const tenantRowsSql = (plan: VectorChannelPlan): string => {
  const cap = Math.trunc(Math.max(plan.exactUpTo, plan.sparse?.upTo ?? 0));
  return `(SELECT count(*)::int FROM (SELECT 1 FROM note_recall WHERE tenant_id = $1::text LIMIT ${cap + 1}) x)`;
};

/**
 * The planner's row estimate of the partition that holds the tenant's rows (its last VACUUM or
 * ANALYZE; -1 never, NULL for a tenant without rows): the catalog read, not a count.
 */
const PARTITION_ROWS = `(SELECT c.reltuples::float8 FROM pg_class c
      WHERE c.oid = (SELECT r.tableoid FROM note_recall r WHERE r.tenant_id = $1::text LIMIT 1))`;

/** Whether the counted tenant (k.n, k.part) is read exactly (VectorChannelPlan). */
const exactReadSql = (plan: VectorChannelPlan): string => {
  const small = `k.n <= ${Math.trunc(plan.exactUpTo)}`;
  if (!plan.sparse) return small;
  const { upTo, shareBelow } = plan.sparse;
  return `(${small} OR (k.n <= ${Math.trunc(upTo)} AND k.n < ${Number(shareBelow)} * k.part))`;
};

/**
 * The distances of the versions named by $at (note ids) and $at+1 (versions), as rows of the vector
 * channel's shape: the key and the distance, every other column null, `known` true. `selectNoteDistances`'
 * expression, so the same values.
 */
const KNOWN_DISTANCES_ROWS = (at: number): string => {
  const columns = VERSION_COLUMNS.split(',').map((c) => c.trim());
  const keyed = columns.map((c) => (c === 'v.note_id' || c === 'v.version' ? c : 'NULL'));
  return `SELECT true, NULL, NULL, ${keyed.join(', ')}, ${VERSION_DISTANCE}, NULL
    FROM unnest($${at}::text[], $${at + 1}::int[]) AS k(note_id, version)
    JOIN note_versions v ON v.tenant_id = $1::text AND v.note_id = k.note_id AND v.version = k.version
   WHERE v.embedding IS NOT NULL`;
};

const RowCount = z.object({ n: z.number().nullable(), exact: z.boolean().nullable() });

/**
 * The current-time vector channel (currentVectorChannelSql): the rows, whether the tenant was read
 * exactly, and its row count up to exactUpTo + 1 (null when the plan named the path).
 */
export async function selectCurrentVectorChannel(
  tx: Queryable,
  p: CandidateParams,
  plan: VectorChannelPlan,
  opts: SqlOptions = {},
  known?: readonly VersionKey[],
): Promise<{ rows: CandidateRow[]; exact: boolean; counted: number | null; known: Map<string, number | null> }> {
  const folded = known !== undefined && known.length > 0;
  const args = folded ? [...params(p), known.map((k) => k.noteId), known.map((k) => k.version)] : params(p);
  const sql = currentVectorChannelSql({ ...plan, limit: p.limit }, userOptions(p, opts), folded);
  const { rows } = await tx.query(sql, args, PREPARED);
  const isKnown = (r: unknown) => (r as { known?: boolean }).known === true;
  const channel = rows.filter((r) => !isKnown(r));
  const { n, exact: counted } = RowCount.parse(channel[0]);
  const found = channel.filter((r) => (r as { note_id: unknown }).note_id !== null);
  // Every key asked for is answered: a version without a vector has no distance (null).
  const distances = new Map<string, number | null>((known ?? []).map((k) => [noteKey(k.noteId, k.version), null]));
  for (const r of rows.filter(isKnown).map((x) => NoteDistance.parse(x))) {
    distances.set(noteKey(r.note_id, r.version), r.distance);
  }
  const exact = plan.path !== undefined ? plan.path === 'exact' : counted === true;
  return { rows: parseRows(found), exact, counted: plan.path !== undefined ? null : n, known: distances };
}

/** A note version's key: which version's distance to read. */
export interface VersionKey {
  noteId: string;
  version: number;
}

/**
 * Cosine distances of the given note versions to the query vector, for rows a statement read
 * before the vector was there (the same expression as the channels', so the same values).
 * A version without a vector is left out. Versions never change, and the projection mirrors
 * their vectors, so this reads the version row whichever table the candidate came from.
 */
export async function selectNoteDistances(
  tx: Queryable,
  tenantId: string,
  queryVector: number[],
  keys: readonly VersionKey[],
): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const { rows } = await tx.query(
    `SELECT v.note_id, v.version, (v.embedding <=> $2::vector)::float8 AS distance
       FROM unnest($3::text[], $4::int[]) AS k(note_id, version)
       JOIN note_versions v ON v.tenant_id = $1::text AND v.note_id = k.note_id AND v.version = k.version
      WHERE v.embedding IS NOT NULL`,
    [tenantId, vectorParam(queryVector), keys.map((k) => k.noteId), keys.map((k) => k.version)],
    PREPARED,
  );
  const parsed = rows.map((r) => NoteDistance.parse(r));
  return new Map(parsed.map((r) => [noteKey(r.note_id, r.version), r.distance]));
}

const NoteDistance = z.object({ note_id: z.string(), version: z.number().int(), distance: z.number() });

/** A note version's key in the maps of `selectNoteDistances` and the candidate merge. */
export const noteKey = (noteId: string, version: number): string => `${noteId}\u0000${version}`;

/**
 * The model that produced the tenant's stored vectors (migration 0008), or null when no reindex
 * recorded one yet (vectors then come from the configured embedder).
 */
export async function selectProjectionModel(tx: Queryable, tenantId: string): Promise<string | null> {
  const { rows } = await tx.query(`SELECT model FROM embedding_projections WHERE tenant_id = $1`, [tenantId], PREPARED);
  return rows[0] === undefined ? null : z.object({ model: z.string().nullable() }).parse(rows[0]).model;
}
