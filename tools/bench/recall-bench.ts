import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { toSql } from 'pgvector';
import { z } from 'zod';
import type { Db, Queryable } from '../../src/db/db.ts';
import { openDb } from '../../src/db/open-db.ts';
import { withTenant } from '../../src/db/tenant.ts';
import {
  selectVectorCandidates,
  setIndexScanSettings,
  vectorCandidatesSql,
  type CandidateParams,
  type CandidateRow,
} from '../../src/recall/queries.ts';
import { candidateLimit } from '../../src/recall/recall.ts';
import {
  EMPTY_TENANT,
  GEOMETRIES,
  POINTER_COPY_COLUMNS,
  SyntheticCorpus,
  VERSION_COPY_COLUMNS,
  type BenchQuery,
  type GeometryName,
  type TenantPlan,
} from './recall-bench-data.ts';
import { median, percentile, ratio, recallAtK } from './recall-bench-stats.ts';

/**
 * Recall at scale: the vector channel of recall() (HNSW with iterative index scans, tenant and
 * lifecycle filters, row-level security, exact fallback) against an exact scan of the same
 * eligible rows, over many tenants of skewed sizes in one index, and its latency against a plain
 * unfiltered ANN query on the same index.
 */
export interface RecallBenchOptions {
  /** PostgreSQL URL; the bench works in a schema of its own and drops it. */
  url: string;
  /** @default 100000 */
  notes?: number;
  /** @default 20 */
  tenants?: number;
  /** Queries per tenant. @default 25 */
  queries?: number;
  /** @default 10 */
  k?: number;
  /** @default 384 */
  dimension?: number;
  /** @default 1 */
  seed?: number;
  /** Distance ratios of the synthetic vectors (see GEOMETRIES). @default 'e5' */
  geometry?: GeometryName;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface LatencyMs {
  p50: number;
  p95: number;
}

export interface TenantMeasure extends TenantPlan {
  /** The access path the planner picks for this tenant's candidate query (EXPLAIN of its first query). */
  plannedPath: 'hnsw' | 'exact';
  /** recall@k of the candidate read as planned, before any fallback. */
  medianRecall: number;
  minRecall: number;
  /** Queries whose read returned fewer rows than asked, so recall() fell back to the exact scan. */
  fallbacks: number;
  /** The same read with the HNSW index forced (sorting disabled), whatever the planner would pick. */
  hnswForced: { medianRecall: number; minRecall: number; shortReads: number; ms: LatencyMs };
  /** The read as recall() runs it, fallback included. */
  recallPathMs: LatencyMs;
  exactMs: LatencyMs;
}

export interface PlanCheck {
  /** Whether the plan reads note_versions through the HNSW index. */
  usesHnsw: boolean;
  /** EXPLAIN (ANALYZE, COSTS OFF) of one query, the query vector elided. */
  plan: string[];
}

export interface RecallBenchReport {
  setup: {
    notes: number;
    versionRows: number;
    tenants: number;
    smallestTenantShare: number;
    retiredNotes: number;
    dimension: number;
    vectors: string;
    geometry: GeometryName;
    seed: number;
    k: number;
    candidateLimit: number;
    queriesPerTenant: number;
    loadSeconds: number;
    indexBuildSeconds: number;
    indexDefinition: string;
    maintenanceWorkMem: string;
    server: string;
  };
  plans: {
    largestTenant: PlanCheck;
    smallestTenant: PlanCheck;
    emptyTenant: PlanCheck;
    /** What an empty tenant would cost if the planner chose the index: the scan runs until hnsw.max_scan_tuples. */
    emptyTenantHnswForced: PlanCheck;
    exactLargestTenant: PlanCheck;
    unfiltered: PlanCheck;
  };
  tenants: TenantMeasure[];
  latencyMs: { filtered: LatencyMs; unfiltered: LatencyMs; emptyTenant: LatencyMs; exact: LatencyMs };
  checks: {
    crossTenantRows: number;
    /** Rows returned that are retired or not current (judged from the generator, not SQL). */
    ineligibleRows: number;
    /** Queries with fewer than k rows although at least k were eligible: from the read alone, and as recall() ends up. */
    shortResults: { hnswRead: number; afterFallback: number; hnswForced: number };
    fallbacks: number;
    emptyTenantRows: number;
    /** Queries whose recall@k is below 0.5: the search settled in the wrong part of the graph. */
    recallBelowHalf: { asPlanned: number; hnswForced: number };
  };
  ratios: {
    filteredVsUnfilteredP95: number;
    emptyTenantVsUnfilteredP95: number;
    exactVsHnswP50: number;
    exactVsHnswP50LargestTenant: number;
  };
  targets: {
    minMedianRecall: { target: number; worstTenant: number; met: boolean };
    minMedianRecallHnswForced: { target: number; worstTenant: number; met: boolean };
    crossTenantRows: { target: 0; met: boolean };
    shortResults: { target: 0; met: boolean };
    filteredVsUnfilteredP95: { target: number; met: boolean };
    emptyTenantVsUnfilteredP95: { target: number; met: boolean };
    met: boolean;
  };
}

const HNSW_INDEX = 'note_versions_embedding_hnsw';
/** The HNSW build keeps its graph in maintenance_work_mem; spilling makes it many times slower. */
const BUILD_MAINTENANCE_WORK_MEM = '1GB';
const SMALLEST_SHARE = 0.01;
const RETIRED_SHARE = 0.1;
const COPY_CHUNK = 1000;

const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const ms = (x: number): number => Number(x.toFixed(3));
const latency = (values: number[]): LatencyMs => ({ p50: ms(percentile(values, 50)), p95: ms(percentile(values, 95)) });

/** One COPY connection on the bench schema (as the bench owner: no row-level security on load). */
async function copyClient(url: string, schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
  await client.connect();
  return client;
}

async function copyLines(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  chunks: Iterable<string>,
  onChunk: () => void,
): Promise<void> {
  const sink = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT csv)`));
  const counted = function* () {
    for (const chunk of chunks) {
      yield chunk;
      onChunk();
    }
  };
  await pipeline(Readable.from(counted()), sink);
}

const IndexDef = z.object({ indexdef: z.string() });
const Setting = z.object({ value: z.string() });

/**
 * Loads the corpus with the HNSW index dropped and then rebuilds it from its own definition: a
 * bulk build is what an operator does for a large import, and inserting 100k vectors one by one
 * into the graph would dominate the run. The index is the migration's, unchanged.
 */
async function loadCorpus(
  db: Db,
  client: pg.Client,
  corpus: SyntheticCorpus,
  report: (phase: string, done: number, total: number) => void,
) {
  const { rows } = await db.query(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`,
    [HNSW_INDEX],
  );
  const indexDefinition = IndexDef.parse(rows[0]).indexdef;
  await db.query(`DROP INDEX ${HNSW_INDEX}`);

  const started = process.hrtime.bigint();
  const versionRows = corpus.versionRows;
  let done = 0;
  await copyLines(client, 'note_versions', VERSION_COPY_COLUMNS, corpus.versionLines(COPY_CHUNK), () =>
    report('load note versions', (done = Math.min(done + COPY_CHUNK, versionRows)), versionRows),
  );
  const notes = corpus.tenants.reduce((s, t) => s + t.notes, 0);
  done = 0;
  await copyLines(client, 'notes', POINTER_COPY_COLUMNS, corpus.pointerLines(COPY_CHUNK * 10), () =>
    report('load current pointers', (done = Math.min(done + COPY_CHUNK * 10, notes)), notes),
  );
  const loadSeconds = elapsedMs(started) / 1000;

  report('build HNSW index', 0, 1);
  await client.query(`SET maintenance_work_mem = '${BUILD_MAINTENANCE_WORK_MEM}'`);
  const buildStarted = process.hrtime.bigint();
  await client.query(indexDefinition);
  const indexBuildSeconds = elapsedMs(buildStarted) / 1000;
  await client.query(`RESET maintenance_work_mem`);
  report('build HNSW index', 1, 1);
  // Statistics and hint bits, as autovacuum would have left them by the time such a table
  // serves queries; without it the first reads of every page also write it back.
  await client.query(`VACUUM (ANALYZE) note_versions`);
  await client.query(`VACUUM (ANALYZE) notes`);
  return { loadSeconds, indexBuildSeconds, indexDefinition };
}

function candidateParams(tenantId: string, q: BenchQuery, limit: number): CandidateParams {
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
  fellBack: boolean;
  ms: number;
}

/**
 * The vector channel exactly as recall() runs it inside withTenant: iterative-scan settings, the
 * HNSW read, and the exact scan when the index returned fewer rows than asked. Timed are the
 * candidate reads (statement and row parsing), not the per-transaction settings.
 */
async function readLikeRecall(tx: Queryable, p: CandidateParams): Promise<PathRead> {
  await setIndexScanSettings(tx, p.limit);
  const started = process.hrtime.bigint();
  const hnswRows = await selectVectorCandidates(tx, p, false);
  const fellBack = hnswRows.length < p.limit;
  const rows = fellBack ? await selectVectorCandidates(tx, p, true) : hnswRows;
  return { rows, hnswRows, fellBack, ms: elapsedMs(started) };
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

/** The baseline: nearest neighbours over the whole table, no tenant or lifecycle filter, default index settings. */
const UNFILTERED_SQL = `SELECT note_id, (embedding <=> $1::vector)::float8 AS distance FROM note_versions ORDER BY embedding <=> $1::vector LIMIT $2::int`;

async function readUnfiltered(db: Db, q: BenchQuery, k: number): Promise<number> {
  const started = process.hrtime.bigint();
  await db.query(UNFILTERED_SQL, [toSql(q.vector), k]);
  return elapsedMs(started);
}

interface QueryOutcome {
  tenant: number;
  recall: number;
  forcedRecall: number;
  pathMs: number;
  forcedMs: number;
  exactMs: number;
  unfilteredMs: number;
  emptyMs: number;
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
 * them alike: the recall path, the exact oracle and the forced HNSW read for the tenant (one
 * transaction, in that order: the latter two read warm pages), the unfiltered ANN query, and the
 * recall path for a tenant that has no notes. The unfiltered query visits the same part of the
 * graph, so whichever of it and the recall path runs second finds those pages cached; they
 * take turns going first.
 */
async function measureQuery(
  db: Db,
  corpus: SyntheticCorpus,
  q: BenchQuery,
  k: number,
  limit: number,
  unfilteredFirst: boolean,
): Promise<QueryOutcome> {
  const plan = corpus.tenants[q.tenant] as TenantPlan;
  const p = candidateParams(plan.tenantId, q, limit);
  let unfilteredMs = unfilteredFirst ? await readUnfiltered(db, q, k) : 0;
  const { path, exact, forced } = await withTenant(db, plan.tenantId, async (tx) => ({
    path: await readLikeRecall(tx, p),
    exact: await timedRead(tx, p, true),
    forced: await readHnswForced(tx, p),
  }));
  if (!unfilteredFirst) unfilteredMs = await readUnfiltered(db, q, k);
  const empty = await withTenant(db, EMPTY_TENANT, (tx) => readLikeRecall(tx, candidateParams(EMPTY_TENANT, q, limit)));

  const ids = (rows: CandidateRow[]): string[] => rows.map((r) => r.version.noteId);
  const returned = [...(path.fellBack ? [...path.hnswRows, ...path.rows] : path.rows), ...forced.rows];
  const kEligible = plan.eligible >= k;
  return {
    tenant: q.tenant,
    recall: recallAtK(ids(path.hnswRows), ids(exact.rows), k),
    forcedRecall: recallAtK(ids(forced.rows), ids(exact.rows), k),
    pathMs: path.ms,
    forcedMs: forced.ms,
    exactMs: exact.ms,
    unfilteredMs,
    emptyMs: empty.ms,
    fellBack: path.fellBack,
    crossTenantRows:
      [...returned, ...exact.rows].filter((r) => r.version.tenantId !== plan.tenantId).length +
      empty.rows.filter((r) => r.version.tenantId !== EMPTY_TENANT).length,
    ineligibleRows: [...returned, ...exact.rows].filter((r) => !corpus.isEligible(q.tenant, r.version.noteId)).length,
    hnswShort: kEligible && path.hnswRows.length < k,
    finalShort: kEligible && path.rows.length < k,
    forcedShort: kEligible && forced.rows.length < k,
    emptyTenantRows: empty.rows.length,
  };
}

const PlanLine = z.object({ 'QUERY PLAN': z.string() });

/** 384 numbers per plan line say nothing; the vector literal is elided. */
const elideVectors = (line: string): string => line.replace(/'\[[^\]]*\]'::vector/g, "'[…]'::vector");

async function explain(tx: Queryable, sql: string, params: unknown[], analyze = true): Promise<PlanCheck> {
  const { rows } = await tx.query(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}COSTS OFF) ${sql}`, params);
  const plan = rows.map((r) => elideVectors(PlanLine.parse(r)['QUERY PLAN']));
  return { usesHnsw: plan.some((line) => line.includes(HNSW_INDEX)), plan };
}

/** EXPLAIN of the candidate query with the parameters recall binds ($1 tenant … $6 limit, see vectorCandidatesSql). */
async function explainCandidates(
  db: Db,
  tenantId: string,
  q: BenchQuery,
  limit: number,
  exact: boolean,
  analyze = true,
  forceHnsw = false,
): Promise<PlanCheck> {
  const p = candidateParams(tenantId, q, limit);
  return withTenant(db, tenantId, async (tx) => {
    await setIndexScanSettings(tx, limit);
    if (forceHnsw) await tx.query('SET LOCAL enable_sort = off');
    return explain(
      tx,
      vectorCandidatesSql(false, exact),
      [p.tenantId, p.at, null, toSql(p.queryVector), p.queryText, p.limit],
      analyze,
    );
  });
}

/** Per tenant, whether the planner serves the candidate query from the HNSW index (it does not depend on the vector). */
async function plannedPaths(
  db: Db,
  corpus: SyntheticCorpus,
  queries: BenchQuery[],
  limit: number,
): Promise<Array<'hnsw' | 'exact'>> {
  const paths: Array<'hnsw' | 'exact'> = [];
  for (const [t, plan] of corpus.tenants.entries()) {
    const q = queries.find((x) => x.tenant === t) as BenchQuery;
    paths.push((await explainCandidates(db, plan.tenantId, q, limit, false, false)).usesHnsw ? 'hnsw' : 'exact');
  }
  return paths;
}

async function explainPlans(
  db: Db,
  corpus: SyntheticCorpus,
  queries: BenchQuery[],
  k: number,
  limit: number,
): Promise<RecallBenchReport['plans']> {
  const last = corpus.tenants.length - 1;
  const queryOf = (tenant: number): BenchQuery => queries.find((q) => q.tenant === tenant) as BenchQuery;
  const largest = queryOf(0);
  return {
    largestTenant: await explainCandidates(db, corpus.tenants[0]?.tenantId as string, largest, limit, false),
    smallestTenant: await explainCandidates(db, corpus.tenants[last]?.tenantId as string, queryOf(last), limit, false),
    emptyTenant: await explainCandidates(db, EMPTY_TENANT, largest, limit, false),
    emptyTenantHnswForced: await explainCandidates(db, EMPTY_TENANT, largest, limit, false, true, true),
    exactLargestTenant: await explainCandidates(db, corpus.tenants[0]?.tenantId as string, largest, limit, true),
    unfiltered: await explain(db, UNFILTERED_SQL, [toSql(largest.vector), k]),
  };
}

const share = (x: number): number => Number(x.toFixed(3));

function tenantMeasures(
  corpus: SyntheticCorpus,
  paths: Array<'hnsw' | 'exact'>,
  outcomes: QueryOutcome[],
): TenantMeasure[] {
  return corpus.tenants.map((plan, t) => {
    const mine = outcomes.filter((o) => o.tenant === t);
    const recalls = mine.map((o) => o.recall);
    const forced = mine.map((o) => o.forcedRecall);
    return {
      ...plan,
      plannedPath: paths[t] ?? 'exact',
      medianRecall: share(median(recalls)),
      minRecall: share(Math.min(...recalls)),
      fallbacks: mine.filter((o) => o.fellBack).length,
      hnswForced: {
        medianRecall: share(median(forced)),
        minRecall: share(Math.min(...forced)),
        shortReads: mine.filter((o) => o.forcedShort).length,
        ms: latency(mine.map((o) => o.forcedMs)),
      },
      recallPathMs: latency(mine.map((o) => o.pathMs)),
      exactMs: latency(mine.map((o) => o.exactMs)),
    };
  });
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

function summarize(
  corpus: SyntheticCorpus,
  paths: Array<'hnsw' | 'exact'>,
  outcomes: QueryOutcome[],
): Pick<RecallBenchReport, 'tenants' | 'latencyMs' | 'checks' | 'ratios' | 'targets'> {
  const tenants = tenantMeasures(corpus, paths, outcomes);
  const latencyMs = {
    filtered: latency(outcomes.map((o) => o.pathMs)),
    unfiltered: latency(outcomes.map((o) => o.unfilteredMs)),
    emptyTenant: latency(outcomes.map((o) => o.emptyMs)),
    exact: latency(outcomes.map((o) => o.exactMs)),
  };
  const checks = {
    crossTenantRows: sum(outcomes.map((o) => o.crossTenantRows)),
    ineligibleRows: sum(outcomes.map((o) => o.ineligibleRows)),
    shortResults: {
      hnswRead: outcomes.filter((o) => o.hnswShort).length,
      afterFallback: outcomes.filter((o) => o.finalShort).length,
      hnswForced: outcomes.filter((o) => o.forcedShort).length,
    },
    fallbacks: outcomes.filter((o) => o.fellBack).length,
    emptyTenantRows: sum(outcomes.map((o) => o.emptyTenantRows)),
    recallBelowHalf: {
      asPlanned: outcomes.filter((o) => o.recall < 0.5).length,
      hnswForced: outcomes.filter((o) => o.forcedRecall < 0.5).length,
    },
  };
  const largest = tenants[0] as TenantMeasure;
  const ratios = {
    filteredVsUnfilteredP95: ratio(latencyMs.filtered.p95, latencyMs.unfiltered.p95),
    emptyTenantVsUnfilteredP95: ratio(latencyMs.emptyTenant.p95, latencyMs.unfiltered.p95),
    exactVsHnswP50: ratio(latencyMs.exact.p50, latencyMs.filtered.p50),
    exactVsHnswP50LargestTenant: ratio(largest.exactMs.p50, largest.recallPathMs.p50),
  };
  const worstTenant = Math.min(...tenants.map((t) => t.medianRecall));
  const worstForced = Math.min(...tenants.map((t) => t.hnswForced.medianRecall));
  const targets = {
    minMedianRecall: { target: 0.95, worstTenant, met: worstTenant >= 0.95 },
    minMedianRecallHnswForced: { target: 0.95, worstTenant: worstForced, met: worstForced >= 0.95 },
    crossTenantRows: { target: 0 as const, met: checks.crossTenantRows === 0 },
    shortResults: {
      target: 0 as const,
      met: checks.shortResults.hnswRead === 0 && checks.shortResults.afterFallback === 0,
    },
    filteredVsUnfilteredP95: { target: 4, met: ratios.filteredVsUnfilteredP95 <= 4 },
    emptyTenantVsUnfilteredP95: { target: 10, met: ratios.emptyTenantVsUnfilteredP95 <= 10 },
  };
  const met = Object.values(targets).every((t) => t.met);
  return { tenants, latencyMs, checks, ratios, targets: { ...targets, met } };
}

async function serverDescription(db: Db): Promise<string> {
  const { rows } = await db.query(
    `SELECT format('PostgreSQL %s, pgvector %s, shared_buffers %s', current_setting('server_version'),
            (SELECT extversion FROM pg_extension WHERE extname = 'vector'), current_setting('shared_buffers')) AS value`,
  );
  return Setting.parse(rows[0]).value;
}

export async function runRecallBench(opts: RecallBenchOptions): Promise<RecallBenchReport> {
  const notes = opts.notes ?? 100_000;
  const tenantCount = opts.tenants ?? 20;
  const perTenant = opts.queries ?? 25;
  const k = opts.k ?? 10;
  const dimension = opts.dimension ?? 384;
  const seed = opts.seed ?? 1;
  const geometry = opts.geometry ?? 'e5';
  const report = opts.onProgress ?? (() => {});
  const limit = candidateLimit(k);
  const corpus = new SyntheticCorpus({
    notes,
    tenants: tenantCount,
    smallestShare: SMALLEST_SHARE,
    retiredShare: RETIRED_SHARE,
    dimension,
    seed,
    geometry: GEOMETRIES[geometry],
  });
  const schema = `nocturne_bench_recall_${randomBytes(4).toString('hex')}`;
  const db = await openDb({ kind: 'postgres', url: opts.url }, { dimension, schema });
  const client = await copyClient(opts.url, schema);
  try {
    const loaded = await loadCorpus(db, client, corpus, report);
    const queries = corpus.queries(perTenant);
    const plans = await explainPlans(db, corpus, queries, k, limit);
    const paths = await plannedPaths(db, corpus, queries, limit);
    // Warm-up, unrecorded: the first round brings index and heap pages into the caches.
    // Rounds hold one query per tenant; alternating by round and tenant, each tenant's queries
    // (and all queries) go first half the time.
    const unfilteredFirst = (i: number): boolean => (Math.floor(i / tenantCount) + (i % tenantCount)) % 2 === 0;
    for (const [i, q] of queries.slice(0, tenantCount).entries())
      await measureQuery(db, corpus, q, k, limit, unfilteredFirst(i));
    const outcomes: QueryOutcome[] = [];
    for (const [i, q] of queries.entries()) {
      outcomes.push(await measureQuery(db, corpus, q, k, limit, unfilteredFirst(i)));
      report('queries', outcomes.length, queries.length);
    }
    const smallest = corpus.tenants[corpus.tenants.length - 1] as TenantPlan;
    return {
      setup: {
        notes,
        versionRows: corpus.versionRows,
        tenants: tenantCount,
        smallestTenantShare: Number((smallest.notes / notes).toFixed(4)),
        retiredNotes: sum(corpus.tenants.map((t) => t.retired)),
        dimension,
        vectors:
          'synthetic: shared topics + subtopics + tenant drift + Gaussian noise, seeded (see src/bench/recall-bench-data.ts)',
        geometry,
        seed,
        k,
        candidateLimit: limit,
        queriesPerTenant: perTenant,
        loadSeconds: Number(loaded.loadSeconds.toFixed(1)),
        indexBuildSeconds: Number(loaded.indexBuildSeconds.toFixed(1)),
        indexDefinition: loaded.indexDefinition,
        maintenanceWorkMem: BUILD_MAINTENANCE_WORK_MEM,
        server: await serverDescription(db),
      },
      plans,
      ...summarize(corpus, paths, outcomes),
    };
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
    await db.close();
  }
}
