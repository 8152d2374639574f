import { UsageError } from '../../../src/cli/errors.ts';
import { printJson, printLine, progress } from '../../../src/cli/output.ts';
import { loadConfig } from '../../../src/config.ts';
import { runCommitBench } from '../../bench/commit-bench.ts';

export interface CommitBenchOptions {
  rows: number;
  driver: string;
  json?: boolean;
}

/** `nocturne bench commit` */
export async function commitBenchCommand(opts: CommitBenchOptions): Promise<void> {
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
    // The owner login: the benchmark makes a schema and baseline tables of its own.
    ...(config.database.kind === 'postgres' ? { url: config.database.migrationUrl ?? config.database.url } : {}),
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
  printLine(
    `  reinforce      ${Math.round(r.reinforce.rowsPerSecond)} rows/s (notes with vectors, batches of 65; ${r.ratios.reinforceVsSingleRow.toFixed(2)}x single rows)`,
  );
}
