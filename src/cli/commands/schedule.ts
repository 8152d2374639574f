import { Client, Connection } from '@temporalio/client';
import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { applyNightlySchedule, describeNightlySchedule, validateCron } from '../../schedule/index.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export function registerSchedule(program: Command): void {
  const schedule = program.command('schedule').description('The nightly consolidation Schedule on the Temporal server');

  schedule
    .command('apply')
    .description(
      'Create or update (idempotent) the Schedule "nocturne-nightly": cron from NOCTURNE_SCHEDULE_CRON, overlap skip, catch-up window',
    )
    .option('--cron <expr>', '5-field cron in UTC (default: NOCTURNE_SCHEDULE_CRON, "0 2 * * *")')
    .option('--catchup-window <duration>', 'missed runs are taken if the server is back within this long', '4 hours')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      '\nExit codes:\n  0  created or updated\n  1  the Temporal server failed\n  2  bad usage or configuration',
    )
    .action(async (opts: { cron?: string; catchupWindow: string; json?: boolean }) => {
      const config = loadConfig();
      const cron = (opts.cron ?? config.triggers.scheduleCron).trim();
      const problem = validateCron(cron);
      if (problem) throw new UsageError(`--cron: ${problem}`);
      if (!/^\d+\s*(s|m|h|d|seconds?|minutes?|hours?|days?)$/.test(opts.catchupWindow.trim())) {
        throw new UsageError('--catchup-window: expected a duration such as "30 minutes", "4 hours" or "1d"');
      }
      const connection = await Connection.connect({ address: config.temporal.address });
      try {
        const client = new Client({ connection, namespace: config.temporal.namespace });
        const applied = await applyNightlySchedule(client, {
          cron,
          taskQueue: config.temporal.taskQueue,
          concurrency: config.triggers.nightlyConcurrency,
          catchupWindow: opts.catchupWindow.trim(),
        });
        const view = await describeNightlySchedule(client, applied.scheduleId);
        if (opts.json) return printJson({ ...applied, nextActionTimes: view.nextActionTimes });
        printLine(
          `schedule ${applied.scheduleId} ${applied.action}: cron "${cron}" (UTC), overlap skip, catch-up ${applied.catchupWindow}, task queue ${applied.taskQueue}`,
        );
        printLine(`next runs: ${view.nextActionTimes.slice(0, 3).join(', ') || '(none)'}`);
      } finally {
        await connection.close();
      }
    });
}
