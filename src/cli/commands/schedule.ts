import type { Command } from 'commander';
import type { ScheduleApplyOptions } from '../actions/schedule.ts';

export function registerSchedule(program: Command): void {
  const schedule = program.command('schedule').description('the nightly consolidation Schedule on the Temporal server');

  schedule
    .command('apply')
    .description(
      'create or update (idempotent) the Schedule "nocturne-nightly": cron from NOCTURNE_SCHEDULE_CRON, overlap skip, catch-up window',
    )
    .option(
      '--cron <expr>',
      '5-field cron (names such as MON-FRI allowed) or @daily/@hourly/@weekly/@monthly/@yearly (default: NOCTURNE_SCHEDULE_CRON, "0 2 * * *")',
    )
    .option('--timezone <iana>', 'time zone the cron is read in (default: NOCTURNE_SCHEDULE_TIMEZONE, UTC)')
    .option('--catchup-window <duration>', 'missed runs are taken if the server is back within this long', '4 hours')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      '\nExit codes:\n  0  created or updated\n  1  the Temporal server failed\n  2  bad usage or configuration',
    )
    .action(async (opts: ScheduleApplyOptions) => (await import('../actions/schedule.ts')).applyScheduleCommand(opts));
}
