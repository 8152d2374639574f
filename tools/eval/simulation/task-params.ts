import { pick } from './random-choice.ts';
import type { TaskKind } from './task-kinds.ts';

/** The details of one task (amounts, dates, places, wording), drawn from the seed. */

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
export const MONTH_NAMES = [
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

export function paramsFor(rand: () => number, kind: TaskKind, today: Date): TaskParams {
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

function isoWeek(date: Date): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}
