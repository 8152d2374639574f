import { printJson, printLine } from '../../../src/cli/output.ts';
import { runArchiveBench } from '../../bench/archive-bench.ts';

export interface ArchiveBenchOptions {
  records: number;
  json?: boolean;
}

/** `nocturne bench archive` */
export async function archiveBenchCommand(opts: ArchiveBenchOptions): Promise<void> {
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
}
