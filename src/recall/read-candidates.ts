import { withTenant, type Db, type Queryable, type TenantOptions } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import {
  indexScanSettings,
  noteKey,
  selectNoteDistances,
  selectProjectionModel,
  selectTextCandidates,
  selectVectorCandidates,
  setIndexScanSettings,
  selectCurrentVectorChannel,
  type CandidateParams,
  type CandidateRow,
  type TextParams,
} from './queries.ts';
import type { RecordChannels } from './fuse.ts';
import { endsAsking } from '../../policies/record-recall.ts';
import type { TimeWindow } from '../../policies/query-time.ts';
import { tenantSizesOf, type TenantSizes } from './tenant-sizes.ts';
import {
  selectRecordDistances,
  selectRecordReplies,
  selectRecordTextCandidates,
  selectRecordVectorCandidates,
  selectRecordVectorChannel,
  selectRecordsAtTimes,
  type RecordParams,
  type RecordRow,
  type RecordTextParams,
} from './record-queries.ts';

/** How the vector channel was read: the index, an exact scan, or not at all (another model's vectors). */
export type VectorPath = 'hnsw' | 'exact' | 'none';

export interface CandidateRead {
  vector: CandidateRow[];
  text: CandidateRow[];
  vectorPath: VectorPath;
  warning: string | undefined;
}

/** The query's vector while the model embeds it: only the statements that compare with it wait. */
export type PendingVector = Promise<number[]>;

/**
 * A promise started now and awaited later (after another await that may throw first): a
 * rejection before then is not reported as unhandled, and the later await still throws it.
 */
export function startedNow<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/**
 * Statements under the tenant around the query's embedding: `before` needs no vector, `after`
 * does. On PostgreSQL one transaction runs both, holding its connection while the model works,
 * so once the vector is there only `after`'s statements and the COMMIT remain (no BEGIN, no
 * role and tenant settings). PGlite has one connection for every reader: there `before` runs in
 * a transaction of its own that ends at once, and `after` in a second one once the vector is there.
 */
async function aroundVector<A, T>(
  db: Db,
  tenantId: string,
  vector: PendingVector,
  before: (tx: Queryable) => Promise<A>,
  after: (tx: Queryable, read: A, queryVector: number[]) => Promise<T>,
  options?: TenantOptions,
): Promise<T> {
  if (db.driver === 'postgres') {
    return withTenant(db, tenantId, async (tx) => after(tx, await before(tx), await vector), options);
  }
  const [queryVector, read] = await Promise.all([vector, withTenant(db, tenantId, before, options)]);
  return withTenant(db, tenantId, (tx) => after(tx, read, queryVector), options);
}

/**
 * Both candidate channels, under the tenant, so row-level security scopes every read even if a
 * predicate were missing. The full-text channel and the tenant's model are read while the query
 * is being embedded; once its vector is there, one statement reads the vector channel and the
 * distances of the full-text rows (`aroundVector`).
 */
export async function readCandidates(
  db: Db,
  embedder: Embedder,
  p: TextParams,
  vector: PendingVector,
): Promise<CandidateRead> {
  const before = async (tx: Queryable) => ({
    model: await selectProjectionModel(tx, p.tenantId),
    text: await selectTextCandidates(tx, { ...p, queryVector: null }),
    planned: await planVectorRead(tx, p.tenantId, tenantSizesOf(db), p.pointInTime),
  });
  return aroundVector(db, p.tenantId, vector, before, async (tx, { model, text, planned }, queryVector) => {
    if (model !== null && model !== embedder.name) {
      // Vectors of another model are not comparable with this query's: full text only until a reindex switches.
      return {
        vector: [],
        text,
        vectorPath: 'none' as const,
        warning: `vector similarity skipped: this tenant's notes are embedded by ${model}, the query by ${embedder.name} (reindex to switch)`,
      };
    }
    const read = await readVectorChannel(tx, { ...p, queryVector }, text, tenantSizesOf(db), planned);
    const rows = await withNoteDistances(tx, p.tenantId, queryVector, text, read.rows, read.known);
    return { vector: read.rows, text: rows, vectorPath: read.path, warning: undefined };
  });
}

/**
 * Rows read without the query's vector, each with its distance: a row the vector channel also
 * returned takes that one, then the distances already read (`known`), the others are read
 * (`selectNoteDistances`); no vector, no distance.
 */
export async function withNoteDistances(
  tx: Queryable,
  tenantId: string,
  queryVector: number[],
  rows: CandidateRow[],
  channel: CandidateRow[] = [],
  known: ReadonlyMap<string, number | null> = new Map(),
): Promise<CandidateRow[]> {
  const key = (r: CandidateRow) => noteKey(r.version.noteId, r.version.version);
  const distances = new Map<string, number | null>(known);
  for (const r of channel) distances.set(key(r), r.distance);
  const missing = rows.filter((r) => !distances.has(key(r))).map((r) => r.version);
  for (const [k, d] of await selectNoteDistances(tx, tenantId, queryVector, missing)) distances.set(k, d);
  return rows.map((r) => ({ ...r, distance: distances.get(key(r)) ?? null }));
}

/**
 * Up to this many projection rows, a tenant's vector channel is an exact scan: at this size it
 * costs about what the index does, and it never depends on which larger tenant shares the
 * tenant's partition (whose rows an index scan would walk past).
 */
export const EXACT_READ_UP_TO = 2000;

/**
 * A tenant that holds a small share of its partition is read exactly up to this size too. Its
 * graph read walks mostly other tenants' rows: with pgvector's filtering, ef_search candidates
 * hold about ef_search × share of its own, and at 1M notes the only tenants under 0.99 mean
 * recall@10 were two of 2,500 and 5,000 notes holding 5% of their partitions. Read exactly, the
 * eleven such tenants of that bench took 6–12 ms at p50 (3–19 ms through the graph) and 7–28 ms
 * at p95 (11–52 ms), every one with recall@10 1.0 (docs/BENCHMARKS.md).
 */
export const SPARSE_TENANT = { upTo: 8000, shareBelow: 0.1 } as const;

export interface VectorRead {
  rows: CandidateRow[];
  path: 'hnsw' | 'exact';
  /** The first read's rows: the index read's, before any fallback. */
  firstRead: CandidateRow[];
  fellBack: boolean;
  /** Distances of the `known` rows passed in (null: no vector), read by the same statement (a current read only). */
  known: Map<string, number | null>;
}

/** The read a tenant's vector channel takes, chosen before the query's vector is there (planVectorRead). */
export interface PlannedRead {
  /** As the tenant's last count chose (TenantSizes); undefined: the statement counts. */
  path: 'exact' | 'hnsw' | undefined;
  /** The rest of the transaction runs cached generic plans (plan_cache_mode). */
  genericPlans: boolean;
}

/**
 * Sets up the vector read in the tenant's transaction while the query is being embedded: once
 * the tenant's last count chose its read, the rest of the transaction runs generic plans, so the
 * vector statement is planned once per connection and kept, where by default PostgreSQL plans a
 * statement over a partitioned table again on every call (0.5-0.8 ms of it at 100k notes, and
 * now and then several milliseconds: docs/BENCHMARKS.md, docs/EVALUATION.md). A generic plan
 * knows no tenant, so it would scan the tenant's whole partition for an exact read; sequential
 * scans are turned off beside it there, and the exact read finds the tenant's rows by key. Set
 * after the full-text read (whose generic plan is slower), and the exact read of a fallback sets
 * per-call planning back first. A point-in-time read (over note_versions, not the projection) is
 * left as it was. On PGlite the settings end with the transaction that reads before the vector
 * (aroundVector), and reads are planned per call.
 */
export async function planVectorRead(
  tx: Queryable,
  tenantId: string,
  sizes: TenantSizes,
  pointInTime = false,
): Promise<PlannedRead> {
  const path = sizes.pathOf(tenantId);
  if (path === undefined || (path === 'exact' && pointInTime)) return { path, genericPlans: false };
  const byKey = path === 'exact' ? `, set_config('enable_seqscan', 'off', true)` : '';
  await tx.query(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)${byKey}`);
  return { path, genericPlans: true };
}

/** Per-call planning again (PostgreSQL's default), after planVectorRead chose generic plans. */
export async function planPerCall(tx: Queryable): Promise<void> {
  await tx.query(`SELECT set_config('plan_cache_mode', 'auto', true), set_config('enable_seqscan', 'on', true)`);
}

/**
 * The vector channel inside the caller's tenant transaction: an exact scan for a small tenant,
 * else the HNSW index with iterative scan bounds, and the exact scan again when the index
 * returned fewer rows than asked or left out a nearer row another channel read
 * (graphReadMissedNearer). A current read is one statement (selectCurrentVectorChannel),
 * which also reads the distances of `known` (rows another channel read without the vector).
 */
export async function readVectorChannel(
  tx: Queryable,
  p: CandidateParams,
  known: readonly CandidateRow[] = [],
  sizes?: TenantSizes,
  planned?: PlannedRead,
): Promise<VectorRead> {
  // ef_search twice the rows read: at ef_search = limit a tenant's graph search now and then
  // settled in the wrong region and returned none of the true top 10 (docs/BENCHMARKS.md).
  const efSearch = 2 * p.limit;
  let first: CandidateRow[];
  let distances = new Map<string, number | null>();
  if (p.pointInTime) {
    await setIndexScanSettings(tx, efSearch);
    first = await selectVectorCandidates(tx, p, false);
  } else {
    const plan = {
      efSearch,
      dimension: p.queryVector.length,
      exactUpTo: EXACT_READ_UP_TO,
      sparse: SPARSE_TENANT,
      path: planned !== undefined ? planned.path : sizes?.pathOf(p.tenantId),
    };
    const keys = known.map((r) => r.version);
    const read = await selectCurrentVectorChannel(tx, p, plan, {}, keys);
    if (read.counted !== null) sizes?.counted(p.tenantId, read.exact ? 'exact' : 'hnsw');
    distances = read.known;
    if (read.exact) return { rows: read.rows, path: 'exact', firstRead: read.rows, fellBack: false, known: distances };
    first = read.rows;
  }
  // Fewer rows than asked means the index scan gave up (hnsw.max_scan_tuples) or the tenant
  // has fewer eligible notes: an exact scan tells the two apart and never misses a row.
  const short = first.length < p.limit;
  if (!short && !graphReadMissedNearer(first, distances))
    return { rows: first, path: 'hnsw', firstRead: first, fellBack: false, known: distances };
  if (short) sizes?.forget(p.tenantId);
  if (planned?.genericPlans) await planPerCall(tx);
  const rows = await selectVectorCandidates(tx, p, true);
  return { rows, path: 'exact', firstRead: first, fellBack: true, known: distances };
}

/**
 * A graph read that settled in the wrong part of the graph: a row the full-text channel read
 * (the same tenant and eligibility, its distance taken in the same statement) is nearer the
 * query than the read's nearest row, yet the read does not hold it. On a large partition HNSW
 * now and then does this, and then every row it returns is far from the query (a tenant of
 * 133,000 notes: 3 to 8 queries in 400 at ef_search 100, docs/BENCHMARKS.md); only an
 * exact read finds the near ones. Rows come ordered by distance.
 */
export function graphReadMissedNearer(
  rows: readonly CandidateRow[],
  known: ReadonlyMap<string, number | null>,
): boolean {
  const nearest = rows[0]?.distance;
  if (nearest === null || nearest === undefined) return false;
  const held = new Set(rows.map((r) => noteKey(r.version.noteId, r.version.version)));
  for (const [key, distance] of known) if (distance !== null && distance < nearest && !held.has(key)) return true;
  return false;
}

/** Union of the two channels by (note, version); both carry distance and rank, so either copy will do. */
export function mergeCandidates(a: CandidateRow[], b: CandidateRow[]): CandidateRow[] {
  const byKey = new Map<string, CandidateRow>();
  for (const row of [...a, ...b]) byKey.set(noteKey(row.version.noteId, row.version.version), row);
  return [...byKey.values()];
}

/**
 * The record index's two channels, each in a tenant transaction of its own so they run at once:
 * full-text matches (read while the query is being embedded) and the nearest records by vector
 * (only those embedded by the query's model; the index scan settings are set with the tenant).
 * The vector channel's transaction is opened while the query is being embedded too, so once the
 * vector is there it runs one statement, which also reads the distances of the full-text rows
 * when those are already read; else they are read after them (`selectRecordDistances`). With
 * `replies`, the reply to each candidate that ends by asking is read where the candidate was:
 * the full-text rows' in their own transaction while the query is embedded, the nearest rows'
 * (those the full-text read did not return) after them. With `atTimes`, up to `depth` records
 * observed in those windows are read in the full-text transaction, and their distances with the
 * full-text rows'.
 */
export async function readRecordChannels(
  db: Db,
  p: RecordTextParams,
  vector: PendingVector,
  opts: { replies?: boolean; atTimes?: { windows: readonly TimeWindow[]; depth: number } } = {},
): Promise<RecordChannels> {
  const textParams = { ...p, queryVector: null };
  const text = startedNow(
    withTenant(db, p.tenantId, async (tx) => {
      const matched = await selectRecordTextCandidates(tx, textParams);
      const atTimes = await readAtTimes(tx, textParams, opts.atTimes);
      const both = [...matched, ...atTimes];
      const replies = opts.replies ? await selectRecordReplies(tx, textParams, askingAmong(both)) : undefined;
      return { rows: matched, atTimes, both, replies };
    }),
  );
  let textRead: RecordRow[] | undefined;
  void text.then(
    (read) => (textRead = read.both),
    () => undefined,
  );
  const nothing = async () => undefined;
  const read = async (tx: Queryable, _: unknown, queryVector: number[]): Promise<RecordChannels> => {
    const q = { ...p, queryVector };
    const early = textRead?.map((r) => r.recordId) ?? [];
    const first = await selectRecordVectorChannel(tx, q, false, early);
    const rows = first.rows.length < p.limit ? await selectRecordVectorCandidates(tx, q, true) : first.rows;
    const distances = new Map<string, number | null>(first.known);
    for (const r of rows) distances.set(r.recordId, r.distance);
    const found = await text;
    const missing = found.both.filter((r) => !distances.has(r.recordId)).map((r) => r.recordId);
    for (const [id, d] of await selectRecordDistances(tx, q, missing)) distances.set(id, d);
    const withDistance = (r: RecordRow) => ({ ...r, distance: distances.get(r.recordId) ?? null });
    const channels = { vector: rows, text: found.rows.map(withDistance), atTimes: found.atTimes.map(withDistance) };
    if (found.replies === undefined) return channels;
    const readAlready = new Set(found.both.map((r) => r.recordId));
    const nearestOnly = rows.filter((r) => !readAlready.has(r.recordId));
    const replies = new Map([...found.replies, ...(await selectRecordReplies(tx, q, askingAmong(nearestOnly)))]);
    return { ...channels, replies };
  };
  return aroundVector(db, p.tenantId, vector, nothing, read, { settings: indexScanSettings(p.limit) });
}

/** The records observed at the times a question names (`selectRecordsAtTimes`), when it names any. */
function readAtTimes(
  tx: Queryable,
  p: RecordTextParams,
  atTimes: { windows: readonly TimeWindow[]; depth: number } | undefined,
): Promise<RecordRow[]> {
  if (atTimes === undefined || atTimes.windows.length === 0) return Promise.resolve([]);
  return selectRecordsAtTimes(tx, { ...p, limit: atTimes.depth }, atTimes.windows);
}

/** Ids of the rows that end by asking (policies/record-recall.ts). */
function askingAmong(rows: readonly RecordRow[]): string[] {
  return rows.filter((r) => endsAsking(r.text)).map((r) => r.recordId);
}

/** The record channels for a query already embedded. */
export function readRecordCandidates(db: Db, p: RecordParams): Promise<RecordChannels> {
  return readRecordChannels(db, p, Promise.resolve(p.queryVector));
}
