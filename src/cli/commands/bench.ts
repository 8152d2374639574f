import type { Command } from 'commander';
import { runArchiveBench } from '../../bench/archive-bench.ts';
import { runCommitBench } from '../../bench/commit-bench.ts';
import { runConsolidateBench } from '../../bench/consolidate-bench.ts';
import { GEOMETRIES, type GeometryName } from '../../bench/recall-bench-data.ts';
import { runRecallBench } from '../../bench/recall-bench.ts';
import { loadConfig } from '../../config.ts';
import { positiveInt, requireRealStack } from '../args.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, progress, table } from '../output.ts';

export function registerBench(program: Command): void {
  const bench = program
    .command('bench')
    .description('ratio benchmarks measured in one run (numbers and how to reproduce them: docs/BENCHMARKS.md)');

  bench
    .command('archive')
    .description('archive read throughput vs a plain gunzip+split+JSON.parse loop, and peak memory at 4x vs 1x input')
    .option('--records <n>', 'records in the 1x input', positiveInt('--records'), 20_000)
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: { records: number; json?: boolean }) => {
      const r = await runArchiveBench({ records: opts.records, json: opts.json ?? false });
      if (opts.json) return printJson(r);
      printLine(
        `archive read, ${r.records} records in ${r.objects} objects (${(r.bytes.raw / 1048576).toFixed(1)} MiB raw)`,
      );
      printLine(
        `  reader    ${Math.round(r.throughput.reader.recordsPerSec)} records/s, ${r.throughput.reader.mbPerSec.toFixed(1)} MiB/s`,
      );
      printLine(
        `  baseline  ${Math.round(r.throughput.baseline.recordsPerSec)} records/s, ${r.throughput.baseline.mbPerSec.toFixed(1)} MiB/s`,
      );
      printLine(
        `  ratio     ${r.throughput.ratio.toFixed(2)} (target >= ${r.throughput.target}: ${r.throughput.pass ? 'met' : 'missed'})`,
      );
      printLine(
        `  memory 4x/1x  ${r.memory.rssRatio.toFixed(2)} (target <= ${r.memory.target}: ${r.memory.pass ? 'met' : 'missed'})`,
      );
    });

  bench
    .command('consolidate')
    .description(
      'consolidation on the real stack: replay and commit rates, orchestration overhead, cost at 10x archive size with the same budget, events per execution',
    )
    .option('--records <n>', 'records in the smaller archive', positiveInt('--records'), 20_000)
    .option('--scale <n>', 'size of the larger archive relative to the smaller', positiveInt('--scale'), 10)
    .option('--episodes <n>', 'episode budget of both runs', positiveInt('--episodes'), 1000)
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: { records: number; scale: number; episodes: number; json?: boolean }) => {
      const config = loadConfig();
      requireRealStack(config, 'bench consolidate');
      const r = await runConsolidateBench({
        env: process.env,
        records: opts.records,
        scale: opts.scale,
        episodes: opts.episodes,
        onProgress: (l) => process.stderr.write(`${l}\n`),
      });
      if (opts.json) return printJson(r);
      for (const [name, m] of [
        ['1x', r.small],
        [`${opts.scale}x`, r.large],
      ] as const) {
        printLine(
          `${name}: ${m.archiveRecords} records archived, ${m.replayedRecords} replayed in ${m.wallSeconds}s (${m.recordsReplayedPerSecond} records/s), ${m.committedChanges} note changes (${m.changesCommittedPerCommitSecond}/s of commit time)`,
        );
        printLine(
          `     outside activities ${(m.outsideActivitiesShare * 100).toFixed(1)}% of wall time, ${m.executions} executions, at most ${m.maxEventsPerExecution} events each`,
        );
      }
      printLine(
        `cost ${opts.scale}x / 1x with the same budget: ${r.costRatioLargeVsSmall}x (target <= ${r.targets.costRatio}); targets ${r.targets.met ? 'met' : 'missed'}`,
      );
    });

  bench
    .command('commit')
    .description('note commit rows/s through the store vs single-row inserts and a bare COPY')
    .option('--rows <n>', 'notes to commit', positiveInt('--rows'), 10_000)
    .option('--driver <driver>', 'postgres (DATABASE_URL) or pglite', 'postgres')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: { rows: number; driver: string; json?: boolean }) => {
      if (opts.driver !== 'postgres' && opts.driver !== 'pglite')
        throw new UsageError(`--driver: expected postgres or pglite, got ${opts.driver}`);
      const config = loadConfig();
      if (opts.driver === 'postgres' && config.database.kind !== 'postgres') {
        throw new UsageError('--driver postgres needs DATABASE_URL (e.g. from `nocturne stack up`)');
      }
      const bar = progress('bench commit');
      const r = await runCommitBench({
        rows: opts.rows,
        driver: opts.driver,
        dimension: config.embedding.dimension,
        ...(config.database.kind === 'postgres' ? { url: config.database.url } : {}),
        onProgress: (phase, done, total) => bar.update(done, total),
      });
      bar.done();
      if (opts.json) return printJson(r);
      printLine(`note commit on ${r.driver}, batches of ${r.batchSize}`);
      printLine(`  store          ${Math.round(r.store.rowsPerSecond)} rows/s`);
      printLine(`  single rows    ${Math.round(r.singleRowInserts.rowsPerSecond)} rows/s`);
      printLine(`  bare COPY      ${Math.round(r.copy.rowsPerSecond)} rows/s`);
      printLine(
        `  store/single   ${r.ratios.storeVsSingleRow.toFixed(1)}x (target >= ${r.target.storeVsSingleRow}x: ${r.target.met ? 'met' : 'missed'})`,
      );
      printLine(`  store/COPY     ${r.ratios.storeVsCopy.toFixed(2)}x`);
    });

  bench
    .command('recall')
    .description(
      'recall@k of the HNSW recall path vs an exact scan over skewed tenants (synthetic vectors), isolation, short results, latency vs an unfiltered ANN query',
    )
    .option('--notes <n>', 'notes over all tenants (10% of them retired)', positiveInt('--notes'), 100_000)
    .option(
      '--tenants <n>',
      'tenants of Zipf-like sizes, the smallest holding ~1% of the notes',
      positiveInt('--tenants'),
      20,
    )
    .option('--queries <n>', 'queries per tenant', positiveInt('--queries'), 25)
    .option('--k <n>', 'k of recall@k', positiveInt('--k'), 10)
    .option(
      '--geometry <name>',
      `distance ratios of the synthetic vectors: ${Object.keys(GEOMETRIES).join(' or ')}`,
      'e5',
    )
    .option('--json', 'one JSON document on stdout')
    .action(
      async (opts: {
        notes: number;
        tenants: number;
        queries: number;
        k: number;
        geometry: string;
        json?: boolean;
      }) => {
        const config = loadConfig();
        if (config.database.kind !== 'postgres')
          throw new UsageError('bench recall needs DATABASE_URL (e.g. from `nocturne stack up`)');
        if (!Object.hasOwn(GEOMETRIES, opts.geometry))
          throw new UsageError(`--geometry: expected ${Object.keys(GEOMETRIES).join(' or ')}, got ${opts.geometry}`);
        const bars = new Map<string, ReturnType<typeof progress>>();
        const r = await runRecallBench({
          url: config.database.url,
          notes: opts.notes,
          tenants: opts.tenants,
          queries: opts.queries,
          k: opts.k,
          geometry: opts.geometry as GeometryName,
          dimension: config.embedding.dimension,
          onProgress: (phase, done, total) => {
            const bar = bars.get(phase) ?? bars.set(phase, progress(`bench recall: ${phase}`)).get(phase);
            bar?.update(done, total);
            if (done === total) bar?.done(`${total} done`);
          },
        });
        if (opts.json) return printJson(r);
        const s = r.setup;
        printLine(
          `recall@${s.k} over ${s.notes} notes (${s.versionRows} versions, ${s.retiredNotes} retired), ${s.tenants} tenants, ${s.queriesPerTenant} queries each, ${s.geometry} geometry; ${s.server}`,
        );
        printLine(
          `  load ${s.loadSeconds}s, HNSW build ${s.indexBuildSeconds}s; planner uses HNSW: largest tenant ${r.plans.largestTenant.usesHnsw}, smallest ${r.plans.smallestTenant.usesHnsw}, empty ${r.plans.emptyTenant.usesHnsw}`,
        );
        printLine(
          table(
            [
              'tenant',
              'notes',
              'eligible',
              'planned',
              'median recall',
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
        const l = r.latencyMs;
        printLine(
          `  p50/p95 ms: filtered ${l.filtered.p50}/${l.filtered.p95}, unfiltered ${l.unfiltered.p50}/${l.unfiltered.p95}, empty tenant ${l.emptyTenant.p50}/${l.emptyTenant.p95}, exact ${l.exact.p50}/${l.exact.p95}`,
        );
        const t = r.targets;
        const verdict = (met: boolean): string => (met ? 'met' : 'missed');
        printLine(
          `  worst tenant median recall ${t.minMedianRecall.worstTenant} as planned, ${t.minMedianRecallHnswForced.worstTenant} with HNSW forced (target >= ${t.minMedianRecall.target}: ${verdict(t.minMedianRecall.met)}, ${verdict(t.minMedianRecallHnswForced.met)})`,
        );
        printLine(
          `  queries with recall below 0.5: ${r.checks.recallBelowHalf.asPlanned} as planned, ${r.checks.recallBelowHalf.hnswForced} with HNSW forced`,
        );
        const short = r.checks.shortResults;
        printLine(
          `  cross-tenant rows ${r.checks.crossTenantRows} (${verdict(t.crossTenantRows.met)}); short results ${short.hnswRead} from the read, ${short.afterFallback} after fallback (${verdict(t.shortResults.met)}), ${short.hnswForced} with HNSW forced`,
        );
        printLine(
          `  filtered/unfiltered p95 ${r.ratios.filteredVsUnfilteredP95} (target <= ${t.filteredVsUnfilteredP95.target}: ${verdict(t.filteredVsUnfilteredP95.met)})`,
        );
        printLine(
          `  empty tenant/unfiltered p95 ${r.ratios.emptyTenantVsUnfilteredP95} (target <= ${t.emptyTenantVsUnfilteredP95.target}: ${verdict(t.emptyTenantVsUnfilteredP95.met)})`,
        );
        printLine(
          `  exact/HNSW p50 ${r.ratios.exactVsHnswP50}x (largest tenant ${r.ratios.exactVsHnswP50LargestTenant}x)`,
        );
      },
    );
}
