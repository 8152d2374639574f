import { UsageError } from '../../../src/cli/errors.ts';
import { printJson, printLine, progress, table } from '../../../src/cli/output.ts';
import { loadConfig } from '../../../src/config.ts';
import { GEOMETRIES } from '../../bench/recall-bench-vectors.ts';
import type { GeometryName } from '../../choices.ts';
import { runRecallBench, type RecallBenchReport } from '../../bench/recall-bench.ts';

export interface RecallBenchOptions {
  notes: number;
  tenants: number;
  queries: number;
  k: number;
  geometry: string;
  keep?: boolean;
  json?: boolean;
}

/** `nocturne bench recall` */
export async function recallBenchCommand(opts: RecallBenchOptions): Promise<void> {
  const config = loadConfig();
  if (config.database.kind !== 'postgres')
    throw new UsageError('bench recall needs DATABASE_URL (e.g. from `nocturne stack up`)');
  if (!Object.hasOwn(GEOMETRIES, opts.geometry))
    throw new UsageError(`--geometry: expected ${Object.keys(GEOMETRIES).join(' or ')}, got ${opts.geometry}`);
  const bars = new Map<string, ReturnType<typeof progress>>();
  const r = await runRecallBench({
    // The owner login: the benchmark makes a schema of its own, bulk-loads it and drops an index.
    url: config.database.migrationUrl ?? config.database.url,
    notes: opts.notes,
    tenants: opts.tenants,
    queries: opts.queries,
    k: opts.k,
    geometry: opts.geometry as GeometryName,
    dimension: config.embedding.dimension,
    keep: opts.keep === true,
    onKept: (schema) =>
      process.stderr.write(`bench recall: kept schema ${schema} (drop it with DROP SCHEMA "${schema}" CASCADE)\n`),
    onProgress: (phase, done, total) => {
      const bar = bars.get(phase) ?? bars.set(phase, progress(`bench recall: ${phase}`)).get(phase);
      bar?.update(done, total);
      if (done === total) bar?.done(`${total} done`);
    },
  });
  if (opts.json) return printJson(r);
  printRecallBench(r);
}

function printRecallBench(r: RecallBenchReport): void {
  const s = r.setup;
  printLine(
    `recall@${s.k} over ${s.notes} notes (${s.versionRows} versions, ${s.retiredNotes} retired), ${s.tenants} tenants, ${s.queriesPerTenant} queries each, ${s.geometry} geometry; ${s.server}`,
  );
  printLine(
    `  load ${s.loadSeconds}s (projection ${s.projectionSeconds}s), HNSW build ${s.indexBuildSeconds}s (note_versions) + ${s.projectionIndexBuildSeconds}s (projection partitions); planner uses HNSW: largest tenant ${r.plans.largestTenant.usesHnsw}, smallest ${r.plans.smallestTenant.usesHnsw}, empty ${r.plans.emptyTenant.usesHnsw}`,
  );
  printLine(
    table(
      [
        'tenant',
        'notes',
        'eligible',
        'planned',
        'mean recall',
        'median',
        'min',
        'fallbacks',
        'forced HNSW median',
        'min',
        'path p50 ms',
        'forced p50 ms',
        'exact p50 ms',
      ],
      r.tenants.map((t) => [
        t.tenantId,
        t.notes,
        t.eligible,
        t.plannedPath,
        t.meanRecall,
        t.medianRecall,
        t.minRecall,
        t.fallbacks,
        t.hnswForced.medianRecall,
        t.hnswForced.minRecall,
        t.recallPathMs.p50,
        t.hnswForced.ms.p50,
        t.exactMs.p50,
      ]),
    ),
  );
  printTargets(r);
}

const verdict = (met: boolean): string => (met ? 'met' : 'missed');

function printTargets(r: RecallBenchReport): void {
  const l = r.latencyMs;
  printLine(
    `  p50/p95 ms: filtered ${l.filtered.p50}/${l.filtered.p95} (in two statements ${l.twoStatements.p50}/${l.twoStatements.p95}), unfiltered ${l.unfiltered.p50}/${l.unfiltered.p95}, empty tenant ${l.emptyTenant.p50}/${l.emptyTenant.p95}, exact ${l.exact.p50}/${l.exact.p95}`,
  );
  const t = r.targets;
  printLine(
    `  worst tenant mean recall ${t.minMeanRecall.worstTenant} (target >= ${t.minMeanRecall.target}: ${verdict(t.minMeanRecall.met)}); worst median with HNSW forced ${t.minMedianRecallHnswForced.worstTenant} (${verdict(t.minMedianRecallHnswForced.met)})`,
  );
  printLine(
    `  queries with recall below 0.5: ${r.checks.recallBelowHalf.asPlanned} on the recall path (target 0: ${verdict(t.recallBelowHalf.met)}), ${r.checks.recallBelowHalf.hnswForced} with HNSW forced`,
  );
  const short = r.checks.shortResults;
  printLine(
    `  cross-tenant rows ${r.checks.crossTenantRows} (${verdict(t.crossTenantRows.met)}); short results ${short.hnswRead} from the read, ${short.afterFallback} after fallback (${verdict(t.shortResults.met)}), ${short.hnswForced} with HNSW forced`,
  );
  printLine(
    `  filtered/unfiltered p95 ${r.ratios.filteredVsUnfilteredP95} (target <= ${t.filteredVsUnfilteredP95.target}: ${verdict(t.filteredVsUnfilteredP95.met)}); in two statements ${r.ratios.twoStatementsVsUnfilteredP95}`,
  );
  printLine(
    `  empty tenant/unfiltered p95 ${r.ratios.emptyTenantVsUnfilteredP95} (target <= ${t.emptyTenantVsUnfilteredP95.target}: ${verdict(t.emptyTenantVsUnfilteredP95.met)})`,
  );
  printLine(`  exact/HNSW p50 ${r.ratios.exactVsHnswP50}x (largest tenant ${r.ratios.exactVsHnswP50LargestTenant}x)`);
}
