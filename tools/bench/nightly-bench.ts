import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import type { NightlyResult } from '../../workflows/nightly-consolidation.ts';
import { rebuildActiveIndex } from '../../src/archive/active-index.ts';
import { writeBatch } from '../../src/archive/index.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import { consolidationId } from '../../src/contracts/workflow-ids.ts';
import { openNoteStore, withArchive, withTemporalClient } from '../../src/runtime.ts';
import { createWorker } from '../../src/worker.ts';
import { scaledRecords } from '../demo/sample.ts';
import { busySeconds, readExecutionChain, type ExecutionChain } from './workflow-history.ts';

/**
 * The nightly fan-out on the real stack: an archive of `tenants` tenants with `records` records
 * each, consolidated by one nightly run (the active-tenants index, one child per tenant, continue
 * as new per page), once per size. Orchestration is the share of the nightly's wall time in
 * which no activity of any of its executions was working, the runs' indexing steps (workflows
 * of their own) included; cost per tenant should stay flat as the number of tenants grows.
 */
export interface NightlyBenchOptions {
  /** Environment with the stack's endpoints (DATABASE_URL, S3, Temporal). */
  env: Record<string, string | undefined>;
  /** Tenant counts to measure, smallest first. @default [100, 1000] */
  tenants?: number[];
  /** Records per tenant. @default 100 */
  records?: number;
  /** Consolidations at once (the nightly input's `concurrency`). @default 4 */
  concurrency?: number;
  onProgress?: (line: string) => void;
}

export interface NightlyMeasure {
  tenants: number;
  records: number;
  wallSeconds: number;
  secondsPerTenant: number;
  /** Share of wall time in which no activity of the nightly or any child was working. */
  orchestrationShare: number;
  completed: number;
  failed: number;
  executions: number;
  maxEventsPerExecution: number;
  /** Seconds spent in each activity type, summed over every execution: where the time goes. */
  activitySecondsByType: Record<string, number>;
}

export interface NightlyBenchReport {
  recordsPerTenant: number;
  concurrency: number;
  runs: NightlyMeasure[];
  /** Seconds per tenant at the largest size / at the smallest. */
  costPerTenantRatio: number;
  targets: { orchestrationShare: number; eventsPerExecution: number; costPerTenantRatio: number; met: boolean };
}

/** The nightly run's date; every record falls within its 7 active days. */
const RUN_DATE = '2026-11-08';
const RECORDS_PER_COPY = 50;
const WRITERS = 8;

export async function runNightlyBench(opts: NightlyBenchOptions): Promise<NightlyBenchReport> {
  const sizes = [...(opts.tenants ?? [100, 1000])].sort((a, b) => a - b);
  const records = opts.records ?? 100;
  const concurrency = opts.concurrency ?? 4;
  const log = opts.onProgress ?? (() => {});
  const runs: NightlyMeasure[] = [];
  for (const tenants of sizes) runs.push(await measureSize(opts.env, tenants, records, concurrency, log));
  const first = runs[0] as NightlyMeasure;
  const last = runs.at(-1) as NightlyMeasure;
  const ratio = round(last.secondsPerTenant / first.secondsPerTenant);
  const met =
    runs.every((r) => r.orchestrationShare <= 0.1 && r.maxEventsPerExecution <= 4096 && r.failed === 0) && ratio <= 1.2;
  return {
    recordsPerTenant: records,
    concurrency,
    runs,
    costPerTenantRatio: ratio,
    targets: { orchestrationShare: 0.1, eventsPerExecution: 4096, costPerTenantRatio: 1.2, met },
  };
}

async function measureSize(
  env: Record<string, string | undefined>,
  tenants: number,
  records: number,
  concurrency: number,
  log: (line: string) => void,
): Promise<NightlyMeasure> {
  const id = randomBytes(3).toString('hex');
  const config = parseConfig({
    ...env,
    NOCTURNE_ARCHIVE_URI: `s3://nocturne/bench-nightly-${id}`,
    NOCTURNE_TASK_QUEUE: `bench-nightly-${id}`,
  });
  const tenantIds = Array.from({ length: tenants }, (_, i) => `bn-${id}-${String(i).padStart(5, '0')}`);
  await archiveTenants(config, tenantIds, records, log);
  const db = await openNoteStore(config);
  const handle = await createWorker(config, { db, log: () => {} });
  try {
    return await handle.runUntil(() =>
      withTemporalClient(config, async (client) => {
        log(`nightly run over ${tenants} tenants (${records} records each, ${concurrency} at once) …`);
        const workflowId = `nightly/bench-${id}`;
        const started = Date.now();
        const result = (await client.workflow.execute('nightlyConsolidationWorkflow', {
          taskQueue: config.temporal.taskQueue,
          workflowId,
          args: [{ date: RUN_DATE, concurrency, activeDays: 7 }],
        })) as NightlyResult;
        const wallSeconds = (Date.now() - started) / 1000;
        log(
          `  done in ${wallSeconds.toFixed(1)} s; reading the histories of the nightly, its ${tenants} runs and their steps …`,
        );
        const chains = [await readExecutionChain(client, workflowId)];
        for (const t of tenantIds) chains.push(...(await readRunAndSteps(client, t)));
        return measure(tenants, records, wallSeconds, result, chains);
      }),
    );
  } finally {
    await db.close();
  }
}

/** A new deployment's archive: the index covers it from the start, then every tenant writes. */
async function archiveTenants(config: Config, tenantIds: string[], records: number, log: (l: string) => void) {
  await withArchive(config, async (archive) => {
    await rebuildActiveIndex(archive);
    let next = 0;
    let written = 0;
    const writer = async () => {
      while (next < tenantIds.length) {
        const tenantId = tenantIds[next++] as string;
        const copies = Math.ceil(records / RECORDS_PER_COPY);
        const batch = scaledRecords({ tenantId, copies, seed: next }).slice(0, records);
        await writeBatch(archive, { tenantId, producer: 'bench', records: batch });
        // Counted when written: eight writers share `next`, which runs ahead of what is done.
        if (++written % 100 === 0) log(`  archived ${written}/${tenantIds.length} tenants`);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
  });
}

/**
 * A tenant's consolidation and the indexing steps it started (its claims' vectors, its window's
 * records): the run waits for them, so their activities are part of its work, not orchestration.
 */
async function readRunAndSteps(client: Client, tenantId: string): Promise<ExecutionChain[]> {
  const workflowId = consolidationId(tenantId, RUN_DATE);
  const run = (await client.workflow.getHandle(workflowId).result()) as ConsolidateResult;
  const steps = [run.vectors?.workflowId, run.records?.workflowId].filter((id): id is string => id !== undefined);
  return Promise.all([workflowId, ...steps].map((id) => readExecutionChain(client, id)));
}

function measure(
  tenants: number,
  records: number,
  wallSeconds: number,
  result: NightlyResult,
  chains: ExecutionChain[],
): NightlyMeasure {
  const start = Math.min(...chains.map((c) => c.start));
  const end = Math.max(...chains.map((c) => c.end));
  const busy = busySeconds(chains.flatMap((c) => c.activities));
  return {
    tenants,
    records: tenants * records,
    wallSeconds: round(wallSeconds),
    secondsPerTenant: round(wallSeconds / tenants),
    orchestrationShare: round(1 - busy / ((end - start) / 1000)),
    completed: result.totals.completed + result.totals.partial,
    failed: result.totals.failed + result.totals.rejected + result.totals.skipped,
    executions: chains.reduce((n, c) => n + c.executions, 0),
    maxEventsPerExecution: Math.max(...chains.map((c) => c.maxEvents)),
    activitySecondsByType: secondsByType(chains),
  };
}

function secondsByType(chains: readonly ExecutionChain[]): Record<string, number> {
  const by: Record<string, number> = {};
  for (const a of chains.flatMap((c) => c.activities)) by[a.type] = (by[a.type] ?? 0) + (a.end - a.start) / 1000;
  return Object.fromEntries(
    Object.entries(by)
      .sort(([, a], [, b]) => b - a)
      .map(([type, seconds]) => [type, round(seconds)]),
  );
}

const round = (x: number) => Math.round(x * 1000) / 1000;
