import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import type { IndexRunRecordsResult } from '../../workflows/record-index-step.ts';
import { writeBatch } from '../../src/archive/index.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import { consolidationId } from '../../src/contracts/workflow-ids.ts';
import { scaledRecords } from '../demo/sample.ts';
import { openNoteStore, withArchive, withTemporalClient } from '../../src/runtime.ts';
import { createWorker } from '../../src/worker.ts';
import type { PhaseTimes } from '../../src/consolidation/phase-times.ts';
import { readExecutionChain } from './workflow-history.ts';

/**
 * Consolidation on the real stack: the same budget over an archive and over one `scale` times
 * larger. Cost should follow the budget, not the archive; orchestration overhead is the share of
 * wall time not spent inside activities (from the recorded history's event times).
 */
export interface ConsolidateBenchOptions {
  /** Environment with the stack's endpoints (DATABASE_URL, S3, Temporal). */
  env: Record<string, string | undefined>;
  /** Records in the smaller archive. @default 20000 */
  records?: number;
  /** How much larger the second archive is. @default 10 */
  scale?: number;
  /** Episode budget of both runs. @default 1000 */
  episodes?: number;
  /**
   * Wait after each run for its record-index step and time it. Otherwise the step is stopped
   * when the run finishes, so that it neither competes with the next run nor outlives the
   * bench's worker. @default false
   */
  waitRecordIndex?: boolean;
  onProgress?: (line: string) => void;
}

interface RunMeasure {
  archiveRecords: number;
  wallSeconds: number;
  activitySeconds: number;
  outsideActivitiesShare: number;
  replayedRecords: number;
  recordsReplayedPerSecond: number;
  committedChanges: number;
  changesCommittedPerCommitSecond: number;
  executions: number;
  maxEventsPerExecution: number;
  /** Seconds of activity time by activity type (replayBatch, commitBatch, indexRecords, …): where the time goes. */
  activitySecondsByType: Record<string, number>;
  /** Seconds of `replayBatch` by phase, summed over the run's batches (reading the archive, validation, …). */
  replayPhaseSeconds: Record<string, number>;
  /**
   * The run's counts and rejections by rule. Sampling weighs recency from the run's start, so
   * two runs of the bench may draw a few different (equivalent) episode copies.
   */
  counts: ConsolidateResult['counts'];
  rejectedByRule: Record<string, number>;
  /**
   * Notes commit without waiting for their vectors (the run does not wait here): seconds from
   * the run's start until the note-vectors step had embedded every claim it committed, and the
   * claims it embedded (those the tenant's cache did not hold count too).
   */
  vectors: { allEmbeddedSeconds: number; afterRunSeconds: number; embedded: number } | null;
  /**
   * The window's raw records are indexed by a step of its own (the run does not wait here):
   * seconds from the run's start until it had indexed them, and the texts it embedded.
   */
  records:
    | { indexedSeconds: number; afterRunSeconds: number; records: number; embedded: number }
    | { workflowId: string; stopped: true }
    | null;
}

interface ConsolidateBenchReport {
  episodesBudget: number;
  small: RunMeasure;
  large: RunMeasure;
  costRatioLargeVsSmall: number;
  targets: { outsideActivitiesShare: number; costRatio: number; eventsPerExecution: number; met: boolean };
}

const RECORDS_PER_COPY = 50;

export async function runConsolidateBench(opts: ConsolidateBenchOptions): Promise<ConsolidateBenchReport> {
  const records = opts.records ?? 20_000;
  const scale = opts.scale ?? 10;
  const episodes = opts.episodes ?? 1000;
  const waitRecordIndex = opts.waitRecordIndex ?? false;
  const log = opts.onProgress ?? (() => {});
  const id = randomBytes(3).toString('hex');
  const config = parseConfig({
    ...opts.env,
    NOCTURNE_ARCHIVE_URI: `s3://nocturne/bench-${id}`,
    NOCTURNE_TASK_QUEUE: `bench-${id}`,
  });
  const small = `bench-${id}-small`;
  const large = `bench-${id}-large`;
  await archiveScaled(config, small, records, log);
  await archiveScaled(config, large, records * scale, log);
  const db = await openNoteStore(config);
  const phases: PhaseTimes = new Map();
  const handle = await createWorker(config, { db, log: () => {}, replayPhases: phases });
  try {
    return await handle.runUntil(() =>
      withTemporalClient(config, async (client) => {
        log(`consolidating ${records} records with a ${episodes}-episode budget …`);
        const s = await measureRun(client, config, phases, {
          tenantId: small,
          episodes,
          archiveRecords: records,
          waitRecordIndex,
        });
        log(`consolidating ${records * scale} records with the same budget …`);
        const l = await measureRun(client, config, phases, {
          tenantId: large,
          episodes,
          archiveRecords: records * scale,
          waitRecordIndex,
        });
        const ratio = l.wallSeconds / s.wallSeconds;
        const met =
          Math.max(s.outsideActivitiesShare, l.outsideActivitiesShare) <= 0.15 &&
          ratio <= 1.3 &&
          Math.max(s.maxEventsPerExecution, l.maxEventsPerExecution) <= 4096;
        return {
          episodesBudget: episodes,
          small: s,
          large: l,
          costRatioLargeVsSmall: round(ratio),
          targets: { outsideActivitiesShare: 0.15, costRatio: 1.3, eventsPerExecution: 4096, met },
        };
      }),
    );
  } finally {
    await db.close();
  }
}

async function archiveScaled(
  config: Config,
  tenantId: string,
  records: number,
  log: (l: string) => void,
): Promise<void> {
  await withArchive(config, async (archive) => {
    const copies = Math.ceil(records / RECORDS_PER_COPY);
    const chunk = 200;
    for (let done = 0; done < copies; done += chunk) {
      const batch = scaledRecords({
        tenantId,
        copies: Math.min(chunk, copies - done),
        start: new Date(Date.UTC(2026, 10, 2) + done * 6 * 3_600_000),
        seed: done + 1,
      }).map((r) => ({ ...r, sessionId: `${r.sessionId}-b${done}`, taskId: `${r.taskId}-b${done}` }));
      await writeBatch(archive, { tenantId, producer: 'bench', records: batch });
      log(
        `archived ${Math.min(done + chunk, copies) * RECORDS_PER_COPY}/${copies * RECORDS_PER_COPY} records for ${tenantId}`,
      );
    }
  });
}

async function measureRun(
  client: Client,
  config: Config,
  phases: PhaseTimes,
  run: { tenantId: string; episodes: number; archiveRecords: number; waitRecordIndex: boolean },
): Promise<RunMeasure> {
  const { tenantId, episodes, archiveRecords, waitRecordIndex } = run;
  const workflowId = consolidationId(tenantId, 'bench');
  phases.clear();
  const started = Date.now();
  const handle = await client.workflow.start('consolidateTenantWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId,
    args: [
      {
        tenantId,
        trigger: 'backfill',
        seed: 1,
        budget: { maxEpisodes: episodes, maxNoteChanges: 1_000_000, deadlineSeconds: 86_400 },
        vectorWaitSeconds: 0,
      },
    ],
  });
  const result = (await handle.result()) as ConsolidateResult;
  const wallSeconds = (Date.now() - started) / 1000;
  const replayPhaseSeconds = Object.fromEntries([...phases].map(([phase, ms]) => [phase, round(ms / 1000)]));
  const vectors = await vectorsDone(client, result, started, wallSeconds);
  const records = await recordsDone(client, result, started, wallSeconds, waitRecordIndex);
  const { activitySeconds, commitSeconds, byType, executions, maxEvents } = await activityTime(client, workflowId);
  return {
    archiveRecords,
    wallSeconds: round(wallSeconds),
    activitySeconds: round(activitySeconds),
    outsideActivitiesShare: round(1 - activitySeconds / wallSeconds),
    replayedRecords: result.counts.replayed,
    recordsReplayedPerSecond: Math.round(result.counts.replayed / wallSeconds),
    committedChanges: result.spent.noteChanges,
    changesCommittedPerCommitSecond: Math.round(result.spent.noteChanges / Math.max(commitSeconds, 1e-3)),
    executions,
    maxEventsPerExecution: maxEvents,
    activitySecondsByType: byType,
    replayPhaseSeconds,
    counts: result.counts,
    rejectedByRule: result.rejectedByRule,
    vectors,
    records,
  };
}

/** Waits for the run's note-vectors step and times it from the run's start. */
async function vectorsDone(
  client: Client,
  result: ConsolidateResult,
  startedMs: number,
  wallSeconds: number,
): Promise<RunMeasure['vectors']> {
  if (!result.vectors) return null;
  const step = (await client.workflow.getHandle(result.vectors.workflowId).result()) as { embedded: number };
  const allEmbeddedSeconds = (Date.now() - startedMs) / 1000;
  return {
    allEmbeddedSeconds: round(allEmbeddedSeconds),
    afterRunSeconds: round(allEmbeddedSeconds - wallSeconds),
    embedded: step.embedded,
  };
}

/** Waits for the run's record-index step and times it from the run's start. */
async function recordsDone(
  client: Client,
  result: ConsolidateResult,
  startedMs: number,
  wallSeconds: number,
  wait: boolean,
): Promise<RunMeasure['records']> {
  if (!result.records) return null;
  const { workflowId } = result.records;
  if (!wait) {
    const step = client.workflow.getHandle(workflowId);
    // It may finish between the look and the stop: then there is nothing to stop.
    if ((await step.describe()).status.name === 'RUNNING')
      await step.terminate('benchmark: not waited for').catch(() => undefined);
    return { workflowId, stopped: true };
  }
  const step = (await client.workflow.getHandle(workflowId).result()) as IndexRunRecordsResult;
  const indexedSeconds = (Date.now() - startedMs) / 1000;
  return {
    indexedSeconds: round(indexedSeconds),
    afterRunSeconds: round(indexedSeconds - wallSeconds),
    records: step.records,
    embedded: step.embedded,
  };
}

/** Sums activity execution time over every execution of the run (following continue-as-new). */
async function activityTime(client: Client, workflowId: string) {
  const chain = await readExecutionChain(client, workflowId);
  const seconds = (type?: string) =>
    chain.activities.filter((a) => type === undefined || a.type === type).reduce((t, a) => t + (a.end - a.start), 0) /
    1000;
  const types = [...new Set(chain.activities.map((a) => a.type))].sort();
  return {
    activitySeconds: seconds(),
    commitSeconds: seconds('commitBatch'),
    byType: Object.fromEntries(types.map((t) => [t, round(seconds(t))])),
    executions: chain.executions,
    maxEvents: chain.maxEvents,
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
