import { toSql } from 'pgvector';
import { z } from 'zod';
import { type Db, type Queryable, withTenant } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import {
  selectTextCandidates,
  selectVectorCandidates,
  type CandidateParams,
  type CandidateRow,
} from '../../src/recall/queries.ts';
import { EXACT_READ_UP_TO, planPerCall, planVectorRead, readVectorChannel } from '../../src/recall/read-candidates.ts';
import { tenantSizesOf, type TenantSizes } from '../../src/recall/tenant-sizes.ts';
import { EMPTY_TENANT, type BenchQuery, type SyntheticCorpus, type TenantPlan } from './recall-bench-data.ts';
import { elapsedMs, recallAtK } from './recall-bench-stats.ts';

export function candidateParams(tenantId: string, q: BenchQuery, limit: number): CandidateParams {
  return {
    tenantId,
    at: new Date().toISOString(),
    pointInTime: false,
    scopes: undefined,
    queryVector: q.vector,
    queryText: q.text,
    limit,
  };
}

interface PathRead {
  rows: CandidateRow[];
  /** Rows of the HNSW read alone, before any fallback. */
  hnswRows: CandidateRow[];
  /** How the first read went: exact (a small or sparse tenant) or through the partition's graph. */
  firstPath: 'hnsw' | 'exact';
  fellBack: boolean;
  ms: number;
}

/**
 * The vector channel exactly as recall() runs it inside withTenant (readVectorChannel): the
 * iterative-scan settings, the small-tenant row count (unless the store's TenantSizes holds a
 * fresh one, as recall's does), the HNSW read with the distances of the full-text channel's rows,
 * and the exact scan when the tenant is small, the index returned fewer rows than asked, or it
 * left out a full-text row nearer than its nearest. The full-text channel and planVectorRead run
 * first and are not timed: recall runs them while the question is being embedded. The rest is timed.
 */
async function readLikeRecall(tx: Queryable, p: CandidateParams, sizes: TenantSizes): Promise<PathRead> {
  const text = await selectTextCandidates(tx, { ...p, queryVector: null });
  const planned = await planVectorRead(tx, p.tenantId, sizes);
  const started = process.hrtime.bigint();
  const read = await readVectorChannel(tx, p, text, sizes, planned);
  const ms = elapsedMs(started);
  // The reads timed after this one in the transaction are planned per call, as before.
  if (planned.genericPlans) await planPerCall(tx);
  const firstPath = read.fellBack ? 'hnsw' : read.path === 'exact' ? 'exact' : 'hnsw';
  return { rows: read.rows, hnswRows: read.firstRead, firstPath, fellBack: read.fellBack, ms };
}

/**
 * The vector channel as recall read it before it became one statement (up to commit 8ff10ac):
 * the scan settings and the row count in one statement, then the exact or the index read, then
 * the exact read when the index returned too few. Timed beside the recall path, in the same
 * transaction and taking turns at going first, so that the two compare within one run.
 */
async function readInTwoStatements(tx: Queryable, p: CandidateParams): Promise<number> {
  const started = process.hrtime.bigint();
  const { rows } = await tx.query(
    `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $3, true),
            (SELECT count(*)::int FROM (SELECT 1 FROM note_recall WHERE tenant_id = $1 LIMIT $2::int) x) AS n`,
    [p.tenantId, EXACT_READ_UP_TO + 1, String(2 * p.limit)],
  );
  const small = z.object({ n: z.number() }).parse(rows[0]).n <= EXACT_READ_UP_TO;
  const read = await selectVectorCandidates(tx, p, small);
  if (!small && read.length < p.limit) await selectVectorCandidates(tx, p, true);
  return elapsedMs(started);
}

async function timedRead(
  tx: Queryable,
  p: CandidateParams,
  exact: boolean,
): Promise<{ rows: CandidateRow[]; ms: number }> {
  const started = process.hrtime.bigint();
  const rows = await selectVectorCandidates(tx, p, exact);
  return { rows, ms: elapsedMs(started) };
}

/**
 * For small tenants the planner prefers sorting the tenant's rows to the index. With sorting
 * disabled for the rest of the transaction (SET LOCAL), the index is the only way to produce
 * the order, which measures HNSW under the filter where recall() would not use it.
 */
async function readHnswForced(tx: Queryable, p: CandidateParams): Promise<{ rows: CandidateRow[]; ms: number }> {
  await tx.query('SET LOCAL enable_sort = off');
  return timedRead(tx, p, false);
}

/**
 * The oracle: the tenant's nearest eligible notes read exactly from the version rows, in full
 * precision, with the store's own definition of what is current (the point-in-time read as of
 * now). Not the projection: its vectors are half-precision copies that only order recall's
 * candidates, so an oracle over them would grade recall against its own rounding, and it would
 * not see a projection that drifted from the store. Read for every query before any is timed
 * (its scans of the version rows would otherwise crowd the timed reads' pages out of the cache).
 */
export async function readOracle(
  db: Db,
  corpus: SyntheticCorpus,
  q: BenchQuery,
  limit: number,
): Promise<CandidateRow[]> {
  const tenantId = (corpus.tenants[q.tenant] as TenantPlan).tenantId;
  return withTenant(db, tenantId, (tx) =>
    selectVectorCandidates(tx, { ...candidateParams(tenantId, q, limit), pointInTime: true }, true),
  );
}

/** The baseline: nearest neighbours over the whole table, no tenant or lifecycle filter, default index settings. */
export const UNFILTERED_SQL = `SELECT note_id, (embedding <=> $1::vector)::float8 AS distance FROM note_versions ORDER BY embedding <=> $1::vector LIMIT $2::int`;

/** A permissive policy for the bench's owner login only; tenant transactions act as the app role and stay filtered. */
const BASELINE_POLICY = 'bench_unfiltered_baseline';

/**
 * Lets the unfiltered baseline see every row. The runtime and owner logins are NOBYPASSRLS and
 * note_versions has FORCE ROW LEVEL SECURITY, so outside a tenant transaction the baseline
 * matched no row at all and timed an empty read. This policy applies to the login that runs
 * the bench (its own schema) and to no other role: recall() reads as the app role
 * (withTenant's SET LOCAL ROLE), which keeps the tenant policy alone.
 */
export async function openUnfilteredBaseline(db: Db): Promise<void> {
  await unscoped(db).query(
    `CREATE POLICY ${BASELINE_POLICY} ON note_versions AS PERMISSIVE FOR SELECT TO CURRENT_USER USING (true)`,
  );
}

/** The unfiltered read, timed; it must return k rows, or the ratio against it would be meaningless. */
async function readUnfiltered(db: Db, q: BenchQuery, k: number): Promise<number> {
  const started = process.hrtime.bigint();
  const { rows } = await unscoped(db).query(UNFILTERED_SQL, [toSql(q.vector), k]);
  const ms = elapsedMs(started);
  if (rows.length < k)
    throw new Error(`the unfiltered baseline returned ${rows.length} of ${k} rows (row-level security hides them)`);
  return ms;
}

export interface QueryOutcome {
  tenant: number;
  recall: number;
  forcedRecall: number;
  pathMs: number;
  /** The same read in the statements recall used before (readInTwoStatements). */
  twoStatementsMs: number;
  forcedMs: number;
  exactMs: number;
  unfilteredMs: number;
  emptyMs: number;
  /** The recall path's first read (PathRead.firstPath). */
  firstPath: 'hnsw' | 'exact';
  fellBack: boolean;
  crossTenantRows: number;
  ineligibleRows: number;
  hnswShort: boolean;
  finalShort: boolean;
  forcedShort: boolean;
  emptyTenantRows: number;
}

/**
 * One query in all its forms, back to back, so a busy neighbour on the machine slows all of
 * them alike: the recall path, the exact read of the projection and the forced HNSW read for
 * the tenant (one transaction, in that order: the latter two read warm pages), the unfiltered
 * ANN query, and the recall path for a tenant that has no notes; graded against the query's
 * oracle (readOracle). The unfiltered query visits the same part of the graph, so whichever of
 * it and the recall path runs second finds those pages cached; they take turns going first.
 */
export async function measureQuery(
  db: Db,
  corpus: SyntheticCorpus,
  q: BenchQuery,
  oracle: readonly CandidateRow[],
  k: number,
  limit: number,
  unfilteredFirst: boolean,
): Promise<QueryOutcome> {
  const plan = corpus.tenants[q.tenant] as TenantPlan;
  const p = candidateParams(plan.tenantId, q, limit);
  let unfilteredMs = unfilteredFirst ? await readUnfiltered(db, q, k) : 0;
  const { path, twoStatementsMs, exact, forced } = await withTenant(db, plan.tenantId, async (tx) => {
    const earlier = unfilteredFirst ? await readInTwoStatements(tx, p) : 0;
    const read = await readLikeRecall(tx, p, tenantSizesOf(db));
    return {
      path: read,
      twoStatementsMs: unfilteredFirst ? earlier : await readInTwoStatements(tx, p),
      exact: await timedRead(tx, p, true),
      forced: await readHnswForced(tx, p),
    };
  });
  if (!unfilteredFirst) unfilteredMs = await readUnfiltered(db, q, k);
  const empty = await withTenant(db, EMPTY_TENANT, (tx) =>
    readLikeRecall(tx, candidateParams(EMPTY_TENANT, q, limit), tenantSizesOf(db)),
  );

  const ids = (rows: readonly CandidateRow[]): string[] => rows.map((r) => r.version.noteId);
  const returned = [...(path.fellBack ? [...path.hnswRows, ...path.rows] : path.rows), ...forced.rows];
  const kEligible = plan.eligible >= k;
  return {
    tenant: q.tenant,
    recall: recallAtK(ids(path.rows), ids(oracle), k),
    forcedRecall: recallAtK(ids(forced.rows), ids(oracle), k),
    pathMs: path.ms,
    twoStatementsMs,
    forcedMs: forced.ms,
    exactMs: exact.ms,
    unfilteredMs,
    emptyMs: empty.ms,
    firstPath: path.firstPath,
    fellBack: path.fellBack,
    crossTenantRows:
      [...returned, ...exact.rows, ...oracle].filter((r) => r.version.tenantId !== plan.tenantId).length +
      empty.rows.filter((r) => r.version.tenantId !== EMPTY_TENANT).length,
    ineligibleRows: [...returned, ...exact.rows, ...oracle].filter(
      (r) => !corpus.isEligible(q.tenant, r.version.noteId),
    ).length,
    hnswShort: kEligible && path.hnswRows.length < k,
    finalShort: kEligible && path.rows.length < k,
    forcedShort: kEligible && forced.rows.length < k,
    emptyTenantRows: empty.rows.length,
  };
}
