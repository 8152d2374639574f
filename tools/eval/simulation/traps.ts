/**
 * The known traps of the simulated world. A trap is a mistake the agent makes by default on
 * some task types until it has learned the lesson; `covers` says whether a text (a note's claim,
 * or a raw correction or error) states that lesson. The same predicate judges Nocturne's notes
 * and the raw records a bounded history keeps, so both memories are held to one standard.
 */

export const TRAP_IDS = ['billing_cents', 'crm_timeout', 'date_format', 'report_tables'] as const;
export type TrapId = (typeof TRAP_IDS)[number];

interface Trap {
  id: TrapId;
  /** One line for reports. */
  title: string;
  /** Task types where the agent falls into it. */
  taskTypes: readonly string[];
  /**
   * Only some users set it off (a personal preference): it is counted per user, and only a
   * lesson from that user's own records or notes avoids it.
   */
  perUser: boolean;
  /** Does this text state the lesson? */
  covers(text: string): boolean;
}

export const TRAPS: Record<TrapId, Trap> = {
  billing_cents: {
    id: 'billing_cents',
    title: 'billing API amounts are in cents (divide by 100)',
    taskTypes: ['invoice_report'],
    perUser: false,
    covers: (text) =>
      /\bcents\b/i.test(text) && /\b(100|divide[ds]?|dividing)\b/i.test(text) && /\bbilling\b/i.test(text),
  },
  crm_timeout: {
    id: 'crm_timeout',
    title: 'crm.export times out with large pages (use a smaller page)',
    taskTypes: ['crm_export'],
    perUser: false,
    covers: (text) => /\b(timeout|timed out|times out)\b/i.test(text) && /page ?size/i.test(text),
  },
  date_format: {
    id: 'date_format',
    title: 'flights.search wants dates as YYYY-MM-DD',
    taskTypes: ['book_flight'],
    perUser: false,
    covers: (text) => /YYYY-MM-DD/i.test(text),
  },
  report_tables: {
    id: 'report_tables',
    title: 'some users want reports as a table',
    taskTypes: ['weekly_summary'],
    perUser: true,
    covers: (text) => /\btables?\b/i.test(text),
  },
};

/** The traps a text states the lesson of (usually none or one). */
export function trapsCoveredBy(text: string): TrapId[] {
  return TRAP_IDS.filter((id) => TRAPS[id].covers(text));
}

/**
 * Lessons whose notes are correct by construction: every trap's, plus one the world teaches
 * without the agent ever avoiding anything (refunds are already in dollars). The side lesson
 * sits in the same scope as the cents lesson and shares words with it, so reconciliation may
 * take one of the two for a contradiction of the other.
 */
export const LESSON_IDS = [...TRAP_IDS, 'refund_dollars'] as const;
export type LessonId = (typeof LESSON_IDS)[number];

export const LESSONS: Record<LessonId, Pick<Trap, 'title' | 'perUser' | 'covers'>> = {
  ...TRAPS,
  refund_dollars: {
    title: 'refund amounts are already in dollars',
    perUser: false,
    covers: (text) => /\brefunds?\b/i.test(text) && /\bdollars\b/i.test(text),
  },
};

/**
 * What a recurrence is counted against: the trap, or the trap and the user for a personal one
 * (one user's correction teaches nothing about another user's taste).
 */
export function trapSubject(trap: TrapId, userId: string): string {
  return TRAPS[trap].perUser ? `${trap}:${userId}` : trap;
}
