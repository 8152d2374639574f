/** What the archive benchmark reports; its numbers carry two decimals. */

export interface Throughput {
  ms: number;
  recordsPerSec: number;
  /** Decompressed bytes per second, in MiB. */
  mbPerSec: number;
}

export interface MemorySample {
  records: number;
  rawBytes: number;
  peakRssMb: number;
  peakHeapMb: number;
}

export interface ArchiveBenchReport {
  records: number;
  objects: number;
  bytes: { compressed: number; raw: number };
  throughput: {
    /** The run whose ratio is the median. */
    reader: Throughput;
    baseline: Throughput;
    /** Median over `runs` of reader / baseline records per second. */
    ratio: number;
    runRatios: number[];
    target: number;
    pass: boolean;
    runs: number;
    /** Alternating rounds per run, best of each. */
    rounds: number;
    /**
     * Baseline / reader CPU time (process.cpuUsage: every thread, so gunzip in the thread pool
     * counts), best round of each. Less sensitive than wall time to other processes taking the
     * CPU; reported alongside, the target applies to `ratio`.
     */
    cpuRatio: number;
  };
  /** Where the reader's time goes, per record, on in-memory lines (explains the ratio). */
  costPerRecordUs: {
    utf8Decode: number;
    jsonParse: number;
    /** What the reader pays: the fast path, with zod for anything it does not prove valid. */
    schemaValidation: number;
    /** `RawRecord.safeParse` alone: what validation cost before the fast path. */
    zodValidation: number;
    /** Share of these records the fast path decided without zod. */
    fastPathShare: number;
    sha256: number;
  };
  memory: {
    x1: MemorySample;
    x4: MemorySample;
    rssRatio: number;
    heapRatio: number;
    target: number;
    pass: boolean;
    note: string;
  };
  environment: { node: string; platform: string; cpus: number };
}

export function twoDecimals(x: number): number {
  return Math.round(x * 100) / 100;
}
