import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileArchiveStore } from '../../src/archive/file-store.ts';
import { fill, sizes } from './archive-bench-input.ts';
import { measureMemory } from './archive-bench-memory.ts';
import type { ArchiveBenchReport } from './archive-bench-report.ts';
import { costBreakdown, measureThroughput, ROUNDS, RUNS } from './archive-bench-throughput.ts';

/**
 * Archive benchmark: read throughput through the validating reader against a plain
 * gunzip + split + JSON.parse loop over the same objects (median of five runs), and peak memory reading an input 4×
 * as large as another — each size in its own child process so one run's heap does not
 * colour the other's numbers. `costPerRecordUs` breaks the reader's work down (UTF-8 decode,
 * JSON.parse, validation of the full RawRecord contract as the reader does it — the
 * hand-written fast path, zod only for what it does not prove valid — zod alone for
 * comparison, sha256 of the line), which bounds the ratio: the baseline pays only gunzip and
 * JSON.parse.
 */
export interface ArchiveBenchOptions {
  /** Records in the 1× input. @default 20000 */
  records?: number;
  /** Suppress the progress lines on stderr (the caller prints one JSON document). @default false */
  json?: boolean;
}

export async function runArchiveBench(opts: ArchiveBenchOptions = {}): Promise<ArchiveBenchReport> {
  const n = opts.records ?? 20_000;
  const log = opts.json ? () => undefined : (s: string) => process.stderr.write(`bench archive: ${s}\n`);
  const root = await mkdtemp(join(tmpdir(), 'nocturne-bench-'));
  try {
    log(`generating ${n} records`);
    const store = new FileArchiveStore(join(root, 'throughput'));
    const keys = await fill(store, n, {});
    const bytes = await sizes(store, keys);
    log(`measuring read throughput over ${keys.length} objects (${RUNS} runs of ${ROUNDS} alternating rounds)`);
    const throughput = await measureThroughput(store, keys, n, bytes.raw);
    const costPerRecordUs = await costBreakdown(store, keys);
    log(`measuring peak memory at 1× and 4× (${n} and ${4 * n} records, one object each, in child processes)`);
    const memory = await measureMemory(root, n);
    return {
      records: n,
      objects: keys.length,
      bytes,
      throughput,
      costPerRecordUs,
      memory,
      environment: {
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        cpus: (await import('node:os')).cpus().length,
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
