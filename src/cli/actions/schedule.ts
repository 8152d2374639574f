import { loadConfig } from '../../config.ts';
import { withTemporalClient } from '../../runtime.ts';
import { applyNightlySchedule, describeNightlySchedule, validateCron, validateTimeZone } from '../../schedule/index.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export interface ScheduleApplyOptions {
  cron?: string;
  timezone?: string;
  catchupWindow: string;
  json?: boolean;
}

/** `nocturne schedule apply` */
export async function applyScheduleCommand(opts: ScheduleApplyOptions): Promise<void> {
  const config = loadConfig();
  const cron = (opts.cron ?? config.triggers.scheduleCron).trim();
  const problem = validateCron(cron);
  if (problem) throw new UsageError(`--cron: ${problem}`);
  const timeZone = (opts.timezone ?? config.triggers.scheduleTimeZone ?? 'UTC').trim();
  const zoneProblem = validateTimeZone(timeZone);
  if (zoneProblem) throw new UsageError(`--timezone: ${zoneProblem}`);
  if (!/^\d+\s*(s|m|h|d|seconds?|minutes?|hours?|days?)$/.test(opts.catchupWindow.trim())) {
    throw new UsageError('--catchup-window: expected a duration such as "30 minutes", "4 hours" or "1d"');
  }
  await withTemporalClient(config, async (client) => {
    const applied = await applyNightlySchedule(client, {
      cron,
      timeZone,
      taskQueue: config.temporal.taskQueue,
      concurrency: config.triggers.nightlyConcurrency,
      catchupWindow: opts.catchupWindow.trim(),
    });
    const view = await describeNightlySchedule(client, applied.scheduleId);
    if (opts.json) return printJson({ ...applied, nextActionTimes: view.nextActionTimes });
    printLine(
      `schedule ${applied.scheduleId} ${applied.action}: cron "${cron}" (${timeZone}), overlap skip, catch-up ${applied.catchupWindow}, task queue ${applied.taskQueue}`,
    );
    printLine(`next runs: ${view.nextActionTimes.slice(0, 3).join(', ') || '(none)'}`);
  });
}
