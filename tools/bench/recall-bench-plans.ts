import { toSql } from 'pgvector';
import { z } from 'zod';
import { type Db, type Queryable, withTenant } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { setIndexScanSettings, vectorCandidatesSql } from '../../src/recall/queries.ts';
import { EMPTY_TENANT, type BenchQuery, type SyntheticCorpus } from './recall-bench-data.ts';
import { HNSW_INDEX, PROJECTION_HNSW } from './recall-bench-load.ts';
import { candidateParams, UNFILTERED_SQL } from './recall-bench-query.ts';
import type { PlanCheck, RecallBenchReport } from './recall-bench-report.ts';

const PlanLine = z.object({ 'QUERY PLAN': z.string() });

/** 384 numbers per plan line say nothing; the vector literal is elided. */
const elideVectors = (line: string): string => line.replace(/'\[[^\]]*\]'::vector/g, "'[…]'::vector");

async function explain(tx: Queryable, sql: string, params: unknown[], analyze = true): Promise<PlanCheck> {
  const { rows } = await tx.query(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}COSTS OFF) ${sql}`, params);
  const plan = rows.map((r) => elideVectors(PlanLine.parse(r)['QUERY PLAN']));
  return { usesHnsw: plan.some((line) => line.includes(HNSW_INDEX) || PROJECTION_HNSW.test(line)), plan };
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
      vectorCandidatesSql(false, exact, q.vector.length),
      [p.tenantId, p.at, null, toSql(p.queryVector), p.queryText, p.limit],
      analyze,
    );
  });
}

export async function explainPlans(
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
    unfiltered: await explain(unscoped(db), UNFILTERED_SQL, [toSql(largest.vector), k]),
  };
}
