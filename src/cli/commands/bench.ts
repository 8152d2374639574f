import type { Command } from 'commander';
import { runArchiveBench } from '../../bench/archive-bench.ts';
import { runCommitBench } from '../../bench/commit-bench.ts';
import { runConsolidateBench } from '../../bench/consolidate-bench.ts';
import { loadConfig } from '../../config.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, progress } from '../output.ts';

const positiveInt = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(value)}`);
  return n;
};

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
      printLine(`archive read, ${r.records} records in ${r.objects} objects (${(r.bytes.raw / 1048576).toFixed(1)} MiB raw)`);
      printLine(`  reader    ${Math.round(r.throughput.reader.recordsPerSec)} records/s, ${r.throughput.reader.mbPerSec.toFixed(1)} MiB/s`);
      printLine(`  baseline  ${Math.round(r.throughput.baseline.recordsPerSec)} records/s, ${r.throughput.baseline.mbPerSec.toFixed(1)} MiB/s`);
      printLine(`  ratio     ${r.throughput.ratio.toFixed(2)} (target >= ${r.throughput.target}: ${r.throughput.pass ? 'met' : 'missed'})`);
      printLine(`  memory 4x/1x  ${r.memory.rssRatio.toFixed(2)} (target <= ${r.memory.target}: ${r.memory.pass ? 'met' : 'missed'})`);
    });

  bench
    .command('consolidate')
    .description('consolidation on the real stack: replay and commit rates, orchestration overhead, cost at 10x archive size with the same budget, events per execution')
    .option('--records <n>', 'records in the smaller archive', positiveInt('--records'), 20_000)
    .option('--scale <n>', 'size of the larger archive relative to the smaller', positiveInt('--scale'), 10)
    .option('--episodes <n>', 'episode budget of both runs', positiveInt('--episodes'), 1000)
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: { records: number; scale: number; episodes: number; json?: boolean }) => {
      const config = loadConfig();
      if (config.database.kind !== 'postgres' || !config.archive.uri.startsWith('s3://')) {
        throw new UsageError('bench consolidate runs on the real stack: eval "$(nocturne stack up)" first (DATABASE_URL and an s3:// archive)');
      }
      const r = await runConsolidateBench({ env: process.env, records: opts.records, scale: opts.scale, episodes: opts.episodes, onProgress: (l) => process.stderr.write(`${l}\n`) });
      if (opts.json) return printJson(r);
      for (const [name, m] of [['1x', r.small], [`${opts.scale}x`, r.large]] as const) {
        printLine(`${name}: ${m.archiveRecords} records archived, ${m.replayedRecords} replayed in ${m.wallSeconds}s (${m.recordsReplayedPerSecond} records/s), ${m.committedChanges} note changes (${m.changesCommittedPerCommitSecond}/s of commit time)`);
        printLine(`     outside activities ${(m.outsideActivitiesShare * 100).toFixed(1)}% of wall time, ${m.executions} executions, at most ${m.maxEventsPerExecution} events each`);
      }
      printLine(`cost ${opts.scale}x / 1x with the same budget: ${r.costRatioLargeVsSmall}x (target <= ${r.targets.costRatio}); targets ${r.targets.met ? 'met' : 'missed'}`);
    });

  bench
    .command('commit')
    .description('note commit rows/s through the store vs single-row inserts and a bare COPY')
    .option('--rows <n>', 'notes to commit', positiveInt('--rows'), 10_000)
    .option('--driver <driver>', 'postgres (DATABASE_URL) or pglite', 'postgres')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: { rows: number; driver: string; json?: boolean }) => {
      if (opts.driver !== 'postgres' && opts.driver !== 'pglite') throw new UsageError(`--driver: expected postgres or pglite, got ${opts.driver}`);
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
      printLine(`  store/single   ${r.ratios.storeVsSingleRow.toFixed(1)}x (target >= ${r.target.storeVsSingleRow}x: ${r.target.met ? 'met' : 'missed'})`);
      printLine(`  store/COPY     ${r.ratios.storeVsCopy.toFixed(2)}x`);
    });
}
