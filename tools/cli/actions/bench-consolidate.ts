import { printJson, printLine } from '../../../src/cli/output.ts';
import { loadConfig } from '../../../src/config.ts';
import { runConsolidateBench } from '../../bench/consolidate-bench.ts';
import { requireRealStack } from '../args.ts';

export interface ConsolidateBenchOptions {
  records: number;
  scale: number;
  episodes: number;
  waitRecordIndex?: boolean;
  json?: boolean;
}

/** `nocturne bench consolidate` */
export async function consolidateBenchCommand(opts: ConsolidateBenchOptions): Promise<void> {
  const config = loadConfig();
  requireRealStack(config, 'bench consolidate');
  const r = await runConsolidateBench({
    env: process.env,
    records: opts.records,
    scale: opts.scale,
    episodes: opts.episodes,
    waitRecordIndex: opts.waitRecordIndex === true,
    onProgress: (l) => process.stderr.write(`${l}\n`),
  });
  if (opts.json) return printJson(r);
  for (const [name, m] of [
    ['1x', r.small],
    [`${opts.scale}x`, r.large],
  ] as const) {
    printLine(
      `${name}: ${m.archiveRecords} records archived, ${m.replayedRecords} replayed in ${m.wallSeconds}s (${m.recordsReplayedPerSecond} records/s), ${m.committedChanges} note changes (${m.changesCommittedPerCommitSecond}/s of commit time)`,
    );
    printLine(
      `     outside activities ${(m.outsideActivitiesShare * 100).toFixed(1)}% of wall time, ${m.executions} executions, at most ${m.maxEventsPerExecution} events each`,
    );
    if (m.vectors)
      printLine(
        `     every new note had its vector ${m.vectors.allEmbeddedSeconds}s after the start (${m.vectors.afterRunSeconds}s after the run finished; ${m.vectors.embedded} claims embedded)`,
      );
    if (m.records && 'stopped' in m.records)
      printLine(`     the window's records were not indexed: ${m.records.workflowId} stopped after the run`);
    else if (m.records)
      printLine(
        `     the window's records were indexed ${m.records.indexedSeconds}s after the start (${m.records.afterRunSeconds}s after the run finished; ${m.records.records} records, ${m.records.embedded} texts embedded)`,
      );
    printLine(
      `     activity time: ${Object.entries(m.activitySecondsByType)
        .map(([type, s]) => `${type} ${s}s`)
        .join(', ')}`,
    );
    printLine(
      `     replayBatch by phase: ${Object.entries(m.replayPhaseSeconds)
        .map(([phase, s]) => `${phase} ${s}s`)
        .join(', ')}; ${m.counts.committed} committed, ${m.counts.quarantined} quarantined`,
    );
  }
  printLine(
    `cost ${opts.scale}x / 1x with the same budget: ${r.costRatioLargeVsSmall}x (target <= ${r.targets.costRatio}); targets ${r.targets.met ? 'met' : 'missed'}`,
  );
}
