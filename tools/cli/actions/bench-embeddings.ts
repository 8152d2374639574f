import { UsageError } from '../../../src/cli/errors.ts';
import { printJson, printLine } from '../../../src/cli/output.ts';
import { runEmbeddingsBench } from '../../bench/embeddings-bench.ts';

export interface EmbeddingsBenchOptions {
  passages: number;
  chars: number;
  batchSize: number;
  rounds: number;
  queries: number;
  ports: string;
  json?: boolean;
}

function parsePorts(value: string): [number, number, number, number] {
  const ports = value.split(',').map((p) => Number(p.trim()));
  if (ports.length !== 4 || !ports.every((p) => Number.isInteger(p) && p > 0 && p < 65536) || new Set(ports).size !== 4)
    throw new UsageError(
      `--ports: expected four distinct ports such as 8097,8096,8095,8094, got ${JSON.stringify(value)}`,
    );
  return ports as [number, number, number, number];
}

/** `nocturne bench embeddings` */
export async function embeddingsBenchCommand(opts: EmbeddingsBenchOptions): Promise<void> {
  const r = await runEmbeddingsBench({
    passages: opts.passages,
    chars: opts.chars,
    batchSize: opts.batchSize,
    rounds: opts.rounds,
    queries: opts.queries,
    ports: parsePorts(opts.ports),
    onProgress: (line) => process.stderr.write(`bench embeddings: ${line}\n`),
  });
  if (opts.json) return printJson(r);
  const s = r.setup;
  printLine(
    `${s.model}: ${s.passages} passages of ${s.chars} characters per layout and round, batches of ${s.batchSize}, ${s.rounds} rounds, ${s.cores} cores`,
  );
  printLine(`  load average ${r.loadAverage.before} before, ${r.loadAverage.after} after`);
  for (const l of Object.values(r.layouts))
    printLine(`  ${l.description.padEnd(48)} ${l.passagesPerSecond} passages/s  (${l.seconds.join(', ')} s)`);
  printLine(`  --threads 2 / --threads 1       ${r.ratios.twoThreadsVsOneThread}`);
  printLine(`  two servers / --threads 1       ${r.ratios.twoServersVsOneThread}`);
  printLine(
    `  best: ${r.layouts[r.best].description} (target >= ${r.target.ratio}x: ${r.target.met ? 'met' : 'missed'})`,
  );
  const q = r.queries;
  printLine(`${q.count} questions one at a time on each server:`);
  for (const l of [q.launcher, q.nagleOn])
    printLine(`  ${l.description.padEnd(48)} mean ${l.meanMs} ms, p50 ${l.p50Ms} ms, p95 ${l.p95Ms} ms`);
  printLine(`  Nagle on / the launcher (mean)  ${q.nagleOnVsLauncherMean}`);
}
