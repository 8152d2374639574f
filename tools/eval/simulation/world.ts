import { seededRandom } from '../../../policies/random.ts';
import { pick, pickWeighted } from './random-choice.ts';
import { requestText } from './request-text.ts';
import { TASK_KINDS, TASK_TYPE, TASK_WEIGHTS, type TaskKind } from './task-kinds.ts';
import { paramsFor, type TaskParams } from './task-params.ts';
import type { TrapId } from './traps.ts';

/**
 * The simulated world of one seed: its users and the stream of tasks they ask for, day by day.
 * It depends on the seed alone, so every memory strategy faces exactly the same tasks.
 */

export const SIM_AGENT_ID = 'sim-assistant';

/** Share of vendor lookups and meeting requests whose tool is down: failures no memory can prevent. @default 0.2 */
const OUTAGE_RATE = 0.2;
/** Share of users who want their reports as a table. @default 0.4 */
const TABLE_USER_SHARE = 0.4;

interface SimUser {
  userId: string;
  wantsTables: boolean;
}

export interface SimTask {
  taskId: string;
  /** 0-based day of the simulation and minute of that day (UTC). */
  day: number;
  minute: number;
  userId: string;
  kind: TaskKind;
  taskType: string;
  /** The user's request: the first record of the episode and the agent's recall query. */
  request: string;
  /** The trap this task sets for this user, if any. */
  trap?: TrapId;
  /** The task's tool is down: it fails whatever the agent remembers. */
  outage: boolean;
  /** Everything else the episode needs, fixed by the seed (amounts, dates, which phrasing the user picks). */
  params: TaskParams;
}

export interface World {
  seed: number;
  days: number;
  tasksPerDay: number;
  /** Midnight UTC of day 0. */
  start: Date;
  users: SimUser[];
  tasks: SimTask[];
}

interface WorldOptions {
  seed: number;
  days: number;
  tasksPerDay: number;
  /** @default 5 */
  users?: number;
  /** @default 2026-09-07 (a Monday, in the past: notes' validity starts at their evidence's time). */
  start?: Date;
}

const DEFAULT_SIM_START = new Date('2026-09-07T00:00:00.000Z');

/** First and last minute of the working day in which tasks happen (09:00 to 17:00 UTC). */
const WORKDAY = { from: 9 * 60, to: 17 * 60 };

export function generateWorld(options: WorldOptions): World {
  const rand = seededRandom(options.seed);
  const start = options.start ?? DEFAULT_SIM_START;
  const users = makeUsers(rand, options.users ?? 5);
  const tasks: SimTask[] = [];
  for (let day = 0; day < options.days; day++) {
    const minutes = taskMinutes(rand, options.tasksPerDay);
    minutes.forEach((minute, i) => {
      const user = pick(rand, users);
      const kind = pickWeighted(rand, TASK_KINDS, (k) => TASK_WEIGHTS[k]);
      tasks.push(makeTask(rand, { day, minute, user, kind, taskId: `d${day}-t${i}`, start }));
    });
  }
  return { seed: options.seed, days: options.days, tasksPerDay: options.tasksPerDay, start, users, tasks };
}

/** At least one user wants tables and at least one does not, so the personal trap is always personal. */
function makeUsers(rand: () => number, count: number): SimUser[] {
  const users = Array.from({ length: count }, (_, i) => ({
    userId: `user-${i + 1}`,
    wantsTables: rand() < TABLE_USER_SHARE,
  }));
  if (count >= 2 && !users.some((u) => u.wantsTables)) (users[0] as SimUser).wantsTables = true;
  if (count >= 2 && users.every((u) => u.wantsTables)) (users[count - 1] as SimUser).wantsTables = false;
  return users;
}

/** Distinct minutes of the working day, in order, so records of two tasks never interleave. */
function taskMinutes(rand: () => number, count: number): number[] {
  const span = WORKDAY.to - WORKDAY.from;
  const slot = span / count;
  return Array.from({ length: count }, (_, i) => WORKDAY.from + Math.floor(i * slot + rand() * Math.max(0, slot - 10)));
}

export function trapOf(kind: TaskKind, user: SimUser): TrapId | undefined {
  switch (kind) {
    case 'invoice_total':
      return 'billing_cents';
    case 'crm_export':
      return 'crm_timeout';
    case 'book_flight':
      return 'date_format';
    case 'weekly_summary':
      return user.wantsTables ? 'report_tables' : undefined;
    default:
      return undefined;
  }
}

interface TaskSeed {
  day: number;
  minute: number;
  user: SimUser;
  kind: TaskKind;
  taskId: string;
  start: Date;
}

function makeTask(rand: () => number, s: TaskSeed): SimTask {
  const today = new Date(s.start.getTime() + s.day * 86_400_000);
  const params = paramsFor(rand, s.kind, today);
  const outage = (s.kind === 'vendor_lookup' || s.kind === 'schedule_meeting') && rand() < OUTAGE_RATE;
  const trap = trapOf(s.kind, s.user);
  return {
    taskId: s.taskId,
    day: s.day,
    minute: s.minute,
    userId: s.user.userId,
    kind: s.kind,
    taskType: TASK_TYPE[s.kind],
    request: requestText(s.kind, params),
    ...(trap ? { trap } : {}),
    outage,
    params,
  };
}
