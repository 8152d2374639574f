/** The kinds of task the simulated users ask for, how often, and the task type each is recorded under. */

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
export type TaskKind = (typeof TASK_KINDS)[number];

/** How often each kind is asked for, relative to the others. */
export const TASK_WEIGHTS: Record<TaskKind, number> = {
  invoice_total: 2,
  crm_export: 1.5,
  book_flight: 1.5,
  weekly_summary: 2.5,
  vendor_lookup: 1.5,
  schedule_meeting: 1.5,
  refund_total: 0.5,
};

/** The task type each kind is recorded under (refunds share the invoice reports' type, and their scope). */
export const TASK_TYPE: Record<TaskKind, string> = {
  invoice_total: 'invoice_report',
  crm_export: 'crm_export',
  book_flight: 'book_flight',
  weekly_summary: 'weekly_summary',
  vendor_lookup: 'vendor_lookup',
  schedule_meeting: 'schedule_meeting',
  refund_total: 'invoice_report',
};
