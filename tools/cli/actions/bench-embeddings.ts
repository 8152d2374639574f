import { UsageError } from '../../../src/cli/errors.ts';
import { printJson, printLine } from '../../../src/cli/output.ts';
import { runEmbeddingsBench } from '../../bench/embeddings-bench.ts';

export interface EmbeddingsBenchOptions {
  passages: number;
  chars: number;
  batchSize: number;
  rounds: number;
  ports: string;
  json?: boolean;
}

function parsePorts(value: string): [number, number, number] {
  const ports = value.split(',').map((p) => Number(p.trim()));
  if (ports.length !== 3 || !ports.every((p) => Number.isInteger(p) && p > 0 && p < 65536) || new Set(ports).size !== 3)
    throw new UsageError(`--ports: expected three distinct ports such as 8097,8096,8095, got ${JSON.stringify(value)}`);
  return ports as [number, number, number];
}

/** `nocturne bench embeddings` */
export async function embeddingsBenchCommand(opts: EmbeddingsBenchOptions): Promise<void> {
  const r = await runEmbeddingsBench({
    passages: opts.passages,
    chars: opts.chars,
    batchSize: opts.batchSize,
    rounds: opts.rounds,
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
}
