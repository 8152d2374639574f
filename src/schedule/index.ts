/** The nightly Temporal Schedule (`nocturne schedule apply`). */
export {
  applyNightlySchedule,
  describeNightlySchedule,
  NIGHTLY_SCHEDULE_ID,
  DEFAULT_CATCHUP_WINDOW,
  type ApplyScheduleOptions,
  type ApplyScheduleResult,
  type NightlyScheduleView,
} from './nightly.ts';
export { nextFireTimes, validateCron, validateTimeZone } from './cron.ts';
