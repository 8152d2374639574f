import type { TaskKind } from './task-kinds.ts';
import { MONTH_NAMES, type TaskParams } from './task-params.ts';

/** The user's request. Worded without "always", "never" or "I want": a request is not a standing preference. */
export function requestText(kind: TaskKind, p: TaskParams): string {
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
