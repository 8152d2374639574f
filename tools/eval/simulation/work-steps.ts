import { agent, call, correction, dollars, grouped, outcome, pickText, result, toolError, type Step } from './steps.ts';
import type { TaskParams } from './task-params.ts';
import type { SimTask } from './world.ts';

/** What the agent does for each kind of task, falling into the task's trap or not. */

/** How users word the corrections of each trap (and of the refunds noise): people do not repeat themselves word for word. */
export const CORRECTIONS = {
  billing_cents: [
    'No, amounts from the billing API are in cents; divide by 100.',
    'That is wrong: the billing API returns cents. Divide every amount by 100.',
    'No, the billing API gives amounts in cents, so divide them by 100.',
  ],
  report_tables: [
    'No, I want reports as a table, not prose.',
    'I asked for a table, not a paragraph.',
    'Always give me reports as a table.',
  ],
  refund_dollars: [
    'No, amounts from the refunds API are already in dollars; do not divide them.',
    'That is wrong: refunds come back in dollars, not cents.',
    'No, the refunds API returns dollars already.',
  ],
} as const;

export function workSteps(task: SimTask, falls: boolean): Step[] {
  const p = task.params;
  switch (task.kind) {
    case 'invoice_total':
      return invoiceSteps(p, falls);
    case 'refund_total':
      return refundSteps(p);
    case 'crm_export':
      return crmSteps(p, falls);
    case 'book_flight':
      return flightSteps(p, falls);
    case 'weekly_summary':
      return summarySteps(p, task.trap === 'report_tables', falls);
    case 'vendor_lookup':
      return task.outage ? outageSteps('vendors.get', { vendor: p.vendor }, 'vendor directory') : vendorSteps(p);
    case 'schedule_meeting':
      return task.outage
        ? outageSteps('calendar.create', { with: p.person, day: p.weekday }, 'calendar service')
        : meetingSteps(p);
  }
}

function invoiceSteps(p: TaskParams, falls: boolean): Step[] {
  const amounts = p.amounts ?? [];
  const cents = amounts.reduce((s, a) => s + a, 0);
  const right = dollars(cents);
  const fetched = [
    call('billing.list_invoices', { month: p.month }),
    result('billing.list_invoices', {
      month: p.month,
      invoices: amounts.map((amount, i) => ({ id: `INV-${p.month}-${i + 1}`, amount })),
    }),
  ];
  if (!falls)
    return [
      ...fetched,
      agent(`You invoiced ${right} in ${p.monthName} (amounts converted from cents).`),
      outcome('success'),
    ];
  const wrong = `$${grouped(cents)}`;
  return [
    ...fetched,
    agent(`You invoiced ${wrong} in ${p.monthName}.`),
    correction(`${pickText(CORRECTIONS.billing_cents, p.phrasing)} The total is ${right}.`),
    outcome('failure', right, wrong),
  ];
}

/** Noise: a correction about another API in the same task type, close in wording to the cents lesson. */
function refundSteps(p: TaskParams): Step[] {
  const amounts = p.amounts ?? [];
  const total = Math.round(amounts.reduce((s, a) => s + a, 0) * 100);
  const wrong = dollars(Math.round(total / 100));
  return [
    call('refunds.list', { month: p.month }),
    result('refunds.list', {
      month: p.month,
      refunds: amounts.map((amount, i) => ({ id: `RF-${p.month}-${i + 1}`, amount })),
    }),
    agent(`You refunded ${wrong} in ${p.monthName}.`),
    correction(`${pickText(CORRECTIONS.refund_dollars, p.phrasing)} The total is ${dollars(total)}.`),
    outcome('failure', dollars(total), wrong),
  ];
}

function crmSteps(p: TaskParams, falls: boolean): Step[] {
  const rows = p.rows ?? 0;
  const done = [
    call('crm.export', { segment: p.segment, pageSize: 200 }),
    result('crm.export', { rows, pages: Math.ceil(rows / 200) }),
    agent(`Done: ${rows} records exported to CSV in ${Math.ceil(rows / 200)} pages.`),
    outcome('success'),
  ];
  if (!falls) return done;
  return [
    call('crm.export', { segment: p.segment, pageSize: 1000 }),
    toolError('crm.export', 'crm.export: upstream timeout after 30s (pageSize=1000)'),
    ...done,
  ];
}

function flightSteps(p: TaskParams, falls: boolean): Step[] {
  const iso = p.date ?? '';
  const [y, m, d] = iso.split('-');
  const dayFirst = `${d}/${m}/${y}`;
  const to = p.city?.code;
  const done = [
    call('flights.search', { to, date: iso }),
    result('flights.search', { flights: [{ id: p.flight, departs: '08:05' }] }),
    call('flights.book', { flight: p.flight }),
    result('flights.book', { confirmation: `C${p.flight}${d}` }),
    agent(`Booked ${p.flight} to ${p.city?.name} on ${iso}.`),
    outcome('success'),
  ];
  if (!falls) return done;
  return [
    call('flights.search', { to, date: dayFirst }),
    toolError('flights.search', `invalid date '${dayFirst}': expected YYYY-MM-DD`),
    ...done,
  ];
}

function summarySteps(p: TaskParams, wantsTable: boolean, falls: boolean): Step[] {
  const revenue = dollars(p.revenueCents ?? 0);
  const fetched = [
    call('orders.summary', { week: p.week }),
    result('orders.summary', { week: p.week, orders: p.orders, revenue }),
  ];
  const prose = agent(`This week (${p.week}) you had ${p.orders} orders worth ${revenue}.`);
  if (!falls) {
    // The trap is personal: for a user who wants tables, remembering means answering with one.
    return [
      ...fetched,
      wantsTable
        ? agent(`| Week | Orders | Revenue |\n|---|---|---|\n| ${p.week} | ${p.orders} | ${revenue} |`)
        : prose,
      outcome('success'),
    ];
  }
  return [
    ...fetched,
    prose,
    correction(pickText(CORRECTIONS.report_tables, p.phrasing)),
    outcome('failure', 'a table', 'prose'),
  ];
}

function vendorSteps(p: TaskParams): Step[] {
  return [
    call('vendors.get', { vendor: p.vendor }),
    result('vendors.get', { vendor: p.vendor, terms: p.terms }),
    agent(`${p.vendor} offers ${p.terms} payment terms.`),
    outcome('success'),
  ];
}

function meetingSteps(p: TaskParams): Step[] {
  return [
    call('calendar.create', { with: p.person, day: p.weekday }),
    result('calendar.create', { eventId: `EV-${p.person}-${p.weekday}`, status: 'confirmed' }),
    agent(`Scheduled: 30 minutes with ${p.person} on ${p.weekday}.`),
    outcome('success'),
  ];
}

/** Noise: the tool is down. Any note recalled before it looks, to the replay, like it preceded a failure. */
function outageSteps(tool: string, args: Record<string, unknown>, service: string): Step[] {
  return [
    call(tool, args),
    toolError(tool, `${tool}: service unavailable (HTTP 503)`),
    agent(`The ${service} is unavailable right now; please try again later.`),
    outcome('failure', 'done', 'service unavailable'),
  ];
}
