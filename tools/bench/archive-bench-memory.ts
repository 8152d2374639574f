import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { FileArchiveStore } from '../../src/archive/file-store.ts';
import { readObject } from '../../src/archive/reader.ts';
import { fill } from './archive-bench-input.ts';
import { twoDecimals as round, type ArchiveBenchReport, type MemorySample } from './archive-bench-report.ts';

/**
 * Peak memory reading an input 4× as large as another. Each size is read in a child process
 * running this file, so one run's heap does not colour the other's numbers.
 */

const MEMORY_TARGET = 1.25;

export async function measureMemory(root: string, n: number): Promise<ArchiveBenchReport['memory']> {
  const sample = async (count: number, name: string): Promise<MemorySample> => {
    const dir = join(root, name);
    // One object per input, far above the reader's verify buffer: the worst case, where
    // only streaming keeps memory flat.
    await fill(new FileArchiveStore(dir), count, { maxObjectBytes: Number.MAX_SAFE_INTEGER });
    return childRead(dir);
  };
  const x1 = await sample(n, 'mem-x1');
  const x4 = await sample(4 * n, 'mem-x4');
  const rssRatio = round(x4.peakRssMb / x1.peakRssMb);
  return {
    x1,
    x4,
    rssRatio,
    heapRatio: round(x4.peakHeapMb / x1.peakHeapMb),
    target: MEMORY_TARGET,
    pass: rssRatio <= MEMORY_TARGET,
    note: 'peak RSS (process.resourceUsage().maxRSS) decides; heap is sampled every 1000 records',
  };
}

const CHILD_FLAG = '--archive-bench-child';

async function childRead(dir: string): Promise<MemorySample> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', tsx, fileURLToPath(import.meta.url), CHILD_FLAG, dir],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as MemorySample;
}

/** In the child: reads every object of one archive and prints the sample as JSON on stdout. */
async function childMain(dir: string): Promise<void> {
  const store = new FileArchiveStore(dir);
  let peakHeap = 0;
  let records = 0;
  let rawBytes = 0;
  for await (const { key } of store.list('raw/')) {
    if (!key.endsWith('.jsonl.gz')) continue;
    for await (const r of readObject(store, key)) {
      records += 1;
      rawBytes += r.lineBytes + 1;
      if (records % 1000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }
  }
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  const sample: MemorySample = {
    records,
    rawBytes,
    peakRssMb: round(process.resourceUsage().maxRSS / 1024),
    peakHeapMb: round(peakHeap / 1024 / 1024),
  };
  process.stdout.write(JSON.stringify(sample));
}

if (process.argv[2] === CHILD_FLAG && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await childMain(process.argv[3] ?? '.');
}
