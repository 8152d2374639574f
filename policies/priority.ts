/**
 * Which raw records are "priority" records: the ones a consolidation run replays first and
 * whose line numbers the archive manifest lists, so sampling can find them without reading
 * whole objects. Pure: the same function runs in the archive writer, activities and tests.
 *
 * Decisions:
 * - `user_correction`: kind `user_correction` or tag `user_correction` — the strongest signal
 *   that a belief was wrong (sampling weight 8).
 * - `failure`: tag `failure`, kind `error`, or `outcome.status === 'failure'` on any kind
 *   (tool results and task outcomes carry it) — something went wrong (weight 5).
 * - `high_value`: tag `high_value`, or producer-set `importance >= HIGH_IMPORTANCE` (weight 3).
 * - `negative_feedback`: kind `feedback` with a negative `outcome.reward` — a user saying
 *   "that was bad" without a structured correction.
 * - `memory_used` is NOT priority on its own: every recall logs one, so listing them would
 *   flood the manifest; they matter next to a failure or correction, and the replay reaches
 *   them through the session of the priority record.
 */

export const PRIORITY_REASONS = ['user_correction', 'failure', 'high_value', 'negative_feedback'] as const;
export type PriorityReason = (typeof PRIORITY_REASONS)[number];

/** Producer-set importance at or above this counts as high value. */
export const HIGH_IMPORTANCE = 0.8;

/** The fields the policy reads; any raw record satisfies it. */
export interface PriorityInput {
  kind: string;
  tags?: readonly string[] | undefined;
  importance?: number | undefined;
  outcome?: { status: 'success' | 'failure' | 'pending'; reward?: number | undefined } | undefined;
}

/** Why a record is a priority record, in `PRIORITY_REASONS` order; empty when it is not. */
export function priorityReasons(record: PriorityInput): PriorityReason[] {
  const tags = new Set(record.tags ?? []);
  const checks: Record<PriorityReason, boolean> = {
    user_correction: record.kind === 'user_correction' || tags.has('user_correction'),
    failure: tags.has('failure') || record.kind === 'error' || record.outcome?.status === 'failure',
    high_value: tags.has('high_value') || (record.importance ?? 0) >= HIGH_IMPORTANCE,
    negative_feedback: record.kind === 'feedback' && (record.outcome?.reward ?? 0) < 0,
  };
  return PRIORITY_REASONS.filter((reason) => checks[reason]);
}

export function isPriorityRecord(record: PriorityInput): boolean {
  return priorityReasons(record).length > 0;
}
