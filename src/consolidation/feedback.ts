import type { FeedbackSignal } from '../../policies/lifecycle-feedback.ts';
import { selectPendingFeedback, withTenant, type Db } from '../db/index.ts';

/** Feedback one run acts on at most; the rest waits for the next run. @default 500 */
export const FEEDBACK_PER_RUN = 500;

/**
 * The agents' feedback on recalled notes (`POST /v1/feedback`) that no note version cites yet,
 * read by a run's first batch only: a staged run does not move the notes it changes, so a later
 * batch of the same run would find the same feedback still pending and count it again.
 */
export async function pendingFeedback(db: Db, tenantId: string, batchNo: number): Promise<FeedbackSignal[]> {
  if (batchNo !== 0) return [];
  return withTenant(db, tenantId, (tx) => selectPendingFeedback(tx, { limit: FEEDBACK_PER_RUN }));
}

/** The recalled notes by episode, plus the notes the feedback is about, so they are known to reconciliation. */
export function withFeedbackNotes(
  recalled: ReadonlyMap<string, readonly string[]>,
  feedback: readonly FeedbackSignal[],
): Map<string, readonly string[]> {
  return new Map([...recalled, ['(agent feedback)', feedback.map((f) => f.noteId)]]);
}
