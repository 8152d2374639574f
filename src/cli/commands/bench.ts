import type { Command } from 'commander';
import { runArchiveBench } from '../../bench/archive-bench.ts';
import { runCommitBench } from '../../bench/commit-bench.ts';
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
