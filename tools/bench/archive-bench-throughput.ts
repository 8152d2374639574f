import { gunzipSync } from 'node:zlib';
import { lineHash } from '../../src/archive/parse-line.ts';
import { readObject } from '../../src/archive/reader.ts';
import { fastRawRecord } from '../../src/archive/record-fast-path.ts';
import type { ArchiveStore } from '../../src/archive/store.ts';
import { RawRecord } from '../../src/contracts/raw-record.ts';
import { twoDecimals as round, type ArchiveBenchReport, type Throughput } from './archive-bench-report.ts';

/** Read throughput of the validating reader against a plain gunzip + JSON.parse loop, and where its time goes. */

const THROUGHPUT_TARGET = 0.8;
/** Independent runs; the reported ratio is their median. */
export const RUNS = 5;
/** Alternating rounds per run, best of each: on a shared machine more rounds find a quiet moment. */
export const ROUNDS = 3;

async function readAll(store: ArchiveStore, keys: string[]): Promise<number> {
  let count = 0;
  for (const key of keys) for await (const _ of readObject(store, key)) count += 1;
  return count;
}

/** The floor any reader pays: whole object in memory, no validation, no hashing, no quarantine. */
async function baseline(store: ArchiveStore, keys: string[]): Promise<number> {
  let count = 0;
  for (const key of keys) {
    for (const line of gunzipSync(await store.getBytes(key))
      .toString('utf8')
      .split('\n')) {
      if (line) {
        JSON.parse(line);
        count += 1;
      }
    }
  }
  return count;
}

async function best(fn: () => Promise<number>, expected: number, rounds = ROUNDS): Promise<number> {
  let ms = Infinity;
  for (let i = 0; i < rounds; i += 1) {
    const t0 = performance.now();
    const got = await fn();
    ms = Math.min(ms, performance.now() - t0);
    if (got !== expected) throw new Error(`benchmark read ${got} records, expected ${expected}`);
  }
  return ms;
}

export async function measureThroughput(
  store: ArchiveStore,
  keys: string[],
  n: number,
  rawBytes: number,
): Promise<ArchiveBenchReport['throughput']> {
  await readAll(store, keys); // warm-up: JIT and zod's compiled checks
  await baseline(store, keys);
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i += 1) runs.push(await oneRun(store, keys, n));
  const rate = (ms: number): Throughput => ({
    ms: round(ms),
    recordsPerSec: Math.round(n / (ms / 1000)),
    mbPerSec: round(rawBytes / 1024 / 1024 / (ms / 1000)),
  });
  const ratios = runs.map((r) => round(r.base.ms / r.reader.ms));
  const ratio = median(ratios);
  const middle = runs[ratios.indexOf(ratio)] as Run;
  return {
    reader: rate(middle.reader.ms),
    baseline: rate(middle.base.ms),
    ratio,
    runRatios: ratios,
    target: THROUGHPUT_TARGET,
    pass: ratio >= THROUGHPUT_TARGET,
    runs: RUNS,
    rounds: ROUNDS,
    cpuRatio: median(runs.map((r) => round(r.base.cpuMs / r.reader.cpuMs))),
  };
}

interface Run {
  reader: { ms: number; cpuMs: number };
  base: { ms: number; cpuMs: number };
}

/** One run: rounds alternate between the two loops so background load hits both alike; best of each. */
async function oneRun(store: ArchiveStore, keys: string[], n: number): Promise<Run> {
  const run: Run = { reader: { ms: Infinity, cpuMs: Infinity }, base: { ms: Infinity, cpuMs: Infinity } };
  const round1 = async (fn: () => Promise<number>, into: { ms: number; cpuMs: number }): Promise<void> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const got = await fn();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (got !== n) throw new Error(`benchmark read ${got} records, expected ${n}`);
    into.ms = Math.min(into.ms, ms);
    into.cpuMs = Math.min(into.cpuMs, (cpu.user + cpu.system) / 1000);
  };
  for (let i = 0; i < ROUNDS; i += 1) {
    await round1(() => readAll(store, keys), run.reader);
    await round1(() => baseline(store, keys), run.base);
  }
  return run;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function costBreakdown(
  store: ArchiveStore,
  keys: string[],
): Promise<ArchiveBenchReport['costPerRecordUs']> {
  const texts = gunzipSync(await store.getBytes(keys[0] ?? ''))
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  const buffers = texts.map((t) => Buffer.from(t));
  const values: unknown[] = texts.map((t) => JSON.parse(t) as unknown);
  const perRecord = async (fn: () => void): Promise<number> =>
    round(((await best(async () => (fn(), texts.length), texts.length)) * 1000) / texts.length);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  return {
    utf8Decode: await perRecord(() => buffers.forEach((b) => utf8.decode(b))),
    jsonParse: await perRecord(() => texts.forEach((t) => JSON.parse(t))),
    schemaValidation: await perRecord(() => values.forEach((v) => fastRawRecord(v) ?? RawRecord.safeParse(v))),
    zodValidation: await perRecord(() => values.forEach((v) => RawRecord.safeParse(v))),
    fastPathShare: round(values.filter((v) => fastRawRecord(v) !== undefined).length / values.length),
    sha256: await perRecord(() => buffers.forEach((b) => lineHash(b))),
  };
}
