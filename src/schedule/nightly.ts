import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import { nightlyConsolidationWorkflow } from '../../workflows/nightly-consolidation.ts';
import { TRIGGER } from '../contracts/search-attributes.ts';

/** One Schedule per namespace: applying again updates it in place. */
export const NIGHTLY_SCHEDULE_ID = 'nocturne-nightly';
/**
 * Runs missed while the server was down are still taken if it is back within this window;
 * later, the night is skipped rather than run in the working day. @default '4 hours'
 */
export const DEFAULT_CATCHUP_WINDOW = '4 hours';

export interface ApplyScheduleOptions {
  cron: string;
  /** IANA zone the cron is read in. @default 'UTC' */
  timeZone?: string;
  taskQueue: string;
  /** Child consolidations at once. @default 4 */
  concurrency?: number;
  catchupWindow?: string;
  scheduleId?: string;
}

export interface ApplyScheduleResult {
  scheduleId: string;
  action: 'created' | 'updated';
  cron: string;
  timeZone: string;
  taskQueue: string;
  overlap: 'SKIP';
  catchupWindow: string;
}

export interface NightlyScheduleView {
  scheduleId: string;
  overlap: string;
  catchupWindowMs: number;
  workflowType: string;
  taskQueue: string;
  paused: boolean;
  nextActionTimes: string[];
}

/**
 * Creates the nightly Schedule or, when it exists, replaces its spec, action and policies:
 * idempotent, so deploys can run it every time. Overlap SKIP: a night still running when the
 * next one is due is not doubled (the per-tenant guards would skip its tenants anyway).
 */
export async function applyNightlySchedule(client: Client, opts: ApplyScheduleOptions): Promise<ApplyScheduleResult> {
  const scheduleId = opts.scheduleId ?? NIGHTLY_SCHEDULE_ID;
  const catchupWindow = opts.catchupWindow ?? DEFAULT_CATCHUP_WINDOW;
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: nightlyConsolidationWorkflow,
    workflowId: scheduleId,
    taskQueue: opts.taskQueue,
    args: [{ concurrency: opts.concurrency ?? 4 }],
    typedSearchAttributes: [{ key: TRIGGER, value: 'schedule' }],
  };
  const timeZone = opts.timeZone ?? 'UTC';
  const spec = { cronExpressions: [opts.cron], timezone: timeZone };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow };
  const result = {
    scheduleId,
    cron: opts.cron,
    timeZone,
    taskQueue: opts.taskQueue,
    overlap: 'SKIP' as const,
    catchupWindow,
  };
  const handle = client.schedule.getHandle(scheduleId);
  try {
    await handle.describe();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    await client.schedule.create({ scheduleId, spec, action, policies });
    return { ...result, action: 'created' };
  }
  await handle.update((prev): ScheduleUpdateOptions => ({ ...prev, spec, action, policies }));
  return { ...result, action: 'updated' };
}

/** What an operator checks after applying: one schedule, its overlap policy, its next runs. */
export async function describeNightlySchedule(
  client: Client,
  scheduleId = NIGHTLY_SCHEDULE_ID,
): Promise<NightlyScheduleView> {
  const d = await client.schedule.getHandle(scheduleId).describe();
  const action = d.action;
  return {
    scheduleId,
    overlap: String(d.policies.overlap),
    catchupWindowMs: d.policies.catchupWindow,
    workflowType: action.type === 'startWorkflow' ? action.workflowType : 'unknown',
    taskQueue: action.type === 'startWorkflow' ? action.taskQueue : 'unknown',
    paused: d.state.paused,
    nextActionTimes: d.info.nextActionTimes.map((t) => t.toISOString()),
  };
}
