import { seededRandom } from '../../../policies/random.ts';
import type { TrapId } from './traps.ts';

/**
 * The simulated world of one seed: its users and the stream of tasks they ask for, day by day.
 * It depends on the seed alone, so every memory strategy faces exactly the same tasks.
 */

export const SIM_AGENT_ID = 'sim-assistant';

/** Tasks the users ask for; the first four hide a trap (weekly_summary only for some users). */
export const TASK_KINDS = [
  'invoice_total',
  'crm_export',
  'book_flight',
  'weekly_summary',
  'vendor_lookup',
  'schedule_meeting',
  'refund_total',
] as const;
type TaskKind = (typeof TASK_KINDS)[number];

/** How often each kind is asked for, relative to the others. */
const TASK_WEIGHTS: Record<TaskKind, number> = {
  invoice_total: 2,
  crm_export: 1.5,
  book_flight: 1.5,
  weekly_summary: 2.5,
  vendor_lookup: 1.5,
  schedule_meeting: 1.5,
  refund_total: 0.5,
};

/** The task type each kind is recorded under (refunds share the invoice reports' type, and their scope). */
const TASK_TYPE: Record<TaskKind, string> = {
  invoice_total: 'invoice_report',
  crm_export: 'crm_export',
  book_flight: 'book_flight',
  weekly_summary: 'weekly_summary',
  vendor_lookup: 'vendor_lookup',
  schedule_meeting: 'schedule_meeting',
  refund_total: 'invoice_report',
};

/** Share of vendor lookups and meeting requests whose tool is down: failures no memory can prevent. @default 0.2 */
const OUTAGE_RATE = 0.2;
/** Share of users who want their reports as a table. @default 0.4 */
const TABLE_USER_SHARE = 0.4;

export interface SimUser {
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

export interface TaskParams {
  /** Index of the wording the user picks for a request or correction. */
  phrasing: number;
  month?: string;
  monthName?: string;
  /** Invoice amounts in cents, or refund amounts in dollars. */
  amounts?: number[];
  segment?: string;
  rows?: number;
  city?: { name: string; code: string };
  /** Travel date as YYYY-MM-DD. */
  date?: string;
  flight?: string;
  week?: string;
  orders?: number;
  revenueCents?: number;
  vendor?: string;
  terms?: string;
  person?: string;
  weekday?: string;
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

const CITIES = [
  { name: 'Oslo', code: 'OSL' },
  { name: 'Lisbon', code: 'LIS' },
  { name: 'Vienna', code: 'VIE' },
  { name: 'Dublin', code: 'DUB' },
  { name: 'Prague', code: 'PRG' },
];
const SEGMENTS = [
  'all customers',
  'customers in Germany',
  'leads created this quarter',
  'customers with open invoices',
];
const VENDORS = [
  { vendor: 'Northwind', terms: 'net 30' },
  { vendor: 'Contoso', terms: 'net 45' },
  { vendor: 'Fabrikam', terms: 'net 15' },
  { vendor: 'Tailspin', terms: 'due on receipt' },
];
const PEOPLE = ['Dana', 'Priya', 'Marek', 'Ines', 'Tomas'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function paramsFor(rand: () => number, kind: TaskKind, today: Date): TaskParams {
  const phrasing = Math.floor(rand() * 3);
  const lastMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
  const month = {
    month: lastMonth.toISOString().slice(0, 7),
    monthName: MONTH_NAMES[lastMonth.getUTCMonth()] as string,
  };
  switch (kind) {
    case 'invoice_total':
      return {
        phrasing,
        ...month,
        amounts: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => 50 * (100 + Math.floor(rand() * 6000))),
      };
    case 'refund_total':
      return {
        phrasing,
        ...month,
        amounts: Array.from({ length: 1 + Math.floor(rand() * 2) }, () => Math.round(2000 + rand() * 40000) / 100),
      };
    case 'crm_export':
      return { phrasing, segment: pick(rand, SEGMENTS), rows: 800 + Math.floor(rand() * 4000) };
    case 'book_flight': {
      const travel = new Date(today.getTime() + (7 + Math.floor(rand() * 40)) * 86_400_000);
      const city = pick(rand, CITIES);
      return {
        phrasing,
        city,
        date: travel.toISOString().slice(0, 10),
        flight: `SK${1000 + Math.floor(rand() * 9000)}`,
      };
    }
    case 'weekly_summary':
      return {
        phrasing,
        week: isoWeek(today),
        orders: 10 + Math.floor(rand() * 90),
        revenueCents: 50 * (2000 + Math.floor(rand() * 20000)),
      };
    case 'vendor_lookup':
      return { phrasing, ...pick(rand, VENDORS) };
    case 'schedule_meeting':
      return { phrasing, person: pick(rand, PEOPLE), weekday: pick(rand, WEEKDAYS) };
  }
}

/** The user's request. Worded without "always", "never" or "I want": a request is not a standing preference. */
function requestText(kind: TaskKind, p: TaskParams): string {
  const variants: Record<TaskKind, () => string[]> = {
    invoice_total: () => [
      `What did we invoice in total for ${p.monthName}?`,
      `Total invoiced for ${p.monthName}, please.`,
      `How much did we bill customers in ${p.monthName}?`,
    ],
    refund_total: () => [
      `How much did we refund in ${p.monthName}?`,
      `Total refunds for ${p.monthName}, please.`,
      `What were our refunds in ${p.monthName}?`,
    ],
    crm_export: () => [
      `Export ${p.segment} from the CRM to CSV.`,
      `Can you pull ${p.segment} out of the CRM as a CSV file?`,
      `CSV export of ${p.segment} from the CRM, please.`,
    ],
    book_flight: () => {
      const city = p.city?.name ?? '';
      return [
        `Book me a flight to ${city} on ${longDate(p.date)}.`,
        `Find and book a flight to ${city} for ${longDate(p.date)}.`,
        `Get me on a flight to ${city}, ${longDate(p.date)}.`,
      ];
    },
    weekly_summary: () => [
      'Summarize this week’s orders for me.',
      'How did orders go this week?',
      'Give me the weekly order report.',
    ],
    vendor_lookup: () => [
      `Find the payment terms of vendor ${p.vendor}.`,
      `What payment terms does ${p.vendor} give us?`,
      `Look up ${p.vendor}'s payment terms.`,
    ],
    schedule_meeting: () => [
      `Schedule a 30-minute meeting with ${p.person} on ${p.weekday}.`,
      `Set up a call with ${p.person} on ${p.weekday}.`,
      `Put a meeting with ${p.person} in my calendar for ${p.weekday}.`,
    ],
  };
  const options = variants[kind]();
  return options[p.phrasing % options.length] as string;
}

/** `2026-10-03` → `3 October 2026`: how people write dates, not how the flight API wants them. */
function longDate(iso: string | undefined): string {
  if (!iso) return '';
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${d} ${MONTH_NAMES[m - 1]} ${y}`;
}

function isoWeek(date: Date): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function pickWeighted<T>(rand: () => number, items: readonly T[], weight: (item: T) => number): T {
  const total = items.reduce((s, i) => s + weight(i), 0);
  let r = rand() * total;
  for (const item of items) {
    r -= weight(item);
    if (r < 0) return item;
  }
  return items[items.length - 1] as T;
}
