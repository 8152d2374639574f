import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { candidateLimit } from '../../src/recall/recall.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { SyntheticCorpus, type BenchQuery, type TenantPlan } from './recall-bench-data.ts';
import { GEOMETRIES } from './recall-bench-vectors.ts';
import { buildMaintenanceWorkMem, copyClient, loadCorpus } from './recall-bench-load.ts';
import { explainPlans } from './recall-bench-plans.ts';
import type { CandidateRow } from '../../src/recall/queries.ts';
import { measureQuery, openUnfilteredBaseline, readOracle, type QueryOutcome } from './recall-bench-query.ts';
import type { RecallBenchOptions, RecallBenchReport } from './recall-bench-report.ts';
import { sum, summarize } from './recall-bench-summary.ts';

export type * from './recall-bench-report.ts';

/** The smallest tenant holds this fraction of an equal share: 1% of the notes at 20 tenants, 0.1% at 200. */
const SMALLEST_OF_EQUAL_SHARE = 0.2;
const RETIRED_SHARE = 0.1;
const Setting = z.object({ value: z.string() });

async function serverDescription(db: Db): Promise<string> {
  const { rows } = await unscoped(db).query(
    `SELECT format('PostgreSQL %s, pgvector %s, shared_buffers %s', current_setting('server_version'),
            (SELECT extversion FROM pg_extension WHERE extname = 'vector'), current_setting('shared_buffers')) AS value`,
  );
  return Setting.parse(rows[0]).value;
}

/** The options with their defaults filled in. */
function withDefaults(opts: RecallBenchOptions) {
  return {
    notes: opts.notes ?? 100_000,
    tenants: opts.tenants ?? 20,
    queriesPerTenant: opts.queries ?? 25,
    k: opts.k ?? 10,
    dimension: opts.dimension ?? 384,
    seed: opts.seed ?? 1,
    geometry: opts.geometry ?? 'e5',
  };
}
type Params = ReturnType<typeof withDefaults>;

export async function runRecallBench(opts: RecallBenchOptions): Promise<RecallBenchReport> {
  const p = withDefaults(opts);
  const report = opts.onProgress ?? (() => {});
  const limit = candidateLimit(p.k);
  const corpus = new SyntheticCorpus({
    notes: p.notes,
    tenants: p.tenants,
    smallestShare: SMALLEST_OF_EQUAL_SHARE / p.tenants,
    retiredShare: RETIRED_SHARE,
    dimension: p.dimension,
    seed: p.seed,
    geometry: GEOMETRIES[p.geometry],
  });
  const schema = `nocturne_bench_recall_${randomBytes(4).toString('hex')}`;
  const db = await openNoteStore(
    { database: { kind: 'postgres', url: opts.url }, embedding: { dimension: p.dimension } },
    { schema },
  );
  const client = await copyClient(opts.url, schema);
  try {
    const loaded = await loadCorpus(db, client, corpus, report);
    await openUnfilteredBaseline(db);
    const queries = corpus.queries(p.queriesPerTenant);
    const plans = await explainPlans(db, corpus, queries, p.k, limit);
    const outcomes = await measureQueries(db, corpus, queries, { k: p.k, limit, report });
    return {
      setup: await describeSetup(db, corpus, p, limit, loaded),
      plans,
      ...summarize(corpus, outcomes),
    };
  } finally {
    try {
      if (opts.keep) opts.onKept?.(schema);
      else await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
    await db.close();
  }
}

/**
 * Every query's oracle first (untimed, readOracle), then every query, after an unrecorded
 * warm-up round that brings index and heap pages into the caches. Rounds hold one query per
 * tenant; alternating by round and tenant, each tenant's queries (and all queries) go first
 * half the time.
 */
async function measureQueries(
  db: Db,
  corpus: SyntheticCorpus,
  queries: readonly BenchQuery[],
  o: { k: number; limit: number; report: NonNullable<RecallBenchOptions['onProgress']> },
): Promise<QueryOutcome[]> {
  const tenantCount = corpus.tenants.length;
  const unfilteredFirst = (i: number): boolean => (Math.floor(i / tenantCount) + (i % tenantCount)) % 2 === 0;
  const oracles: CandidateRow[][] = [];
  for (const q of queries) {
    oracles.push(await readOracle(db, corpus, q, o.limit));
    o.report('oracle', oracles.length, queries.length);
  }
  for (const [i, q] of queries.slice(0, tenantCount).entries())
    await measureQuery(db, corpus, q, oracles[i] as CandidateRow[], o.k, o.limit, unfilteredFirst(i));
  const outcomes: QueryOutcome[] = [];
  for (const [i, q] of queries.entries()) {
    outcomes.push(await measureQuery(db, corpus, q, oracles[i] as CandidateRow[], o.k, o.limit, unfilteredFirst(i)));
    o.report('queries', outcomes.length, queries.length);
  }
  return outcomes;
}

async function describeSetup(
  db: Db,
  corpus: SyntheticCorpus,
  p: Params,
  limit: number,
  loaded: Awaited<ReturnType<typeof loadCorpus>>,
): Promise<RecallBenchReport['setup']> {
  const smallest = corpus.tenants[corpus.tenants.length - 1] as TenantPlan;
  return {
    notes: p.notes,
    versionRows: corpus.versionRows,
    tenants: p.tenants,
    smallestTenantShare: Number((smallest.notes / p.notes).toFixed(4)),
    retiredNotes: sum(corpus.tenants.map((t) => t.retired)),
    dimension: p.dimension,
    vectors:
      'synthetic: shared topics + subtopics + tenant drift + Gaussian noise, seeded (see tools/bench/recall-bench-data.ts)',
    geometry: p.geometry,
    seed: p.seed,
    k: p.k,
    candidateLimit: limit,
    queriesPerTenant: p.queriesPerTenant,
    loadSeconds: Number(loaded.loadSeconds.toFixed(1)),
    projectionSeconds: Number(loaded.projectionSeconds.toFixed(1)),
    indexBuildSeconds: Number(loaded.indexBuildSeconds.toFixed(1)),
    indexDefinition: loaded.indexDefinition,
    projectionIndexBuildSeconds: Number(loaded.projectionIndexBuildSeconds.toFixed(1)),
    projectionIndexDefinition: loaded.projectionIndexDefinition,
    maintenanceWorkMem: buildMaintenanceWorkMem(corpus.versionRows),
    server: await serverDescription(db),
  };
}
