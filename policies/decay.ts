import type { NoteKind } from '../src/contracts/note.ts';

/** Read-time half-life by note kind, from lastConfirmedAt. */
export const DECAY_HALF_LIFE_DAYS: Record<NoteKind, number> = {
  preference: 180,
  constraint: 90,
  fact: 60,
  strategy: 60,
  failure_cause: 60,
  tool_behavior: 30,
  episode_summary: 14,
};

const DAY_MS = 86_400_000;

export function decayFactor(kind: NoteKind, lastConfirmedAt: Date, now: Date): number {
  const ageDays = Math.max(0, now.getTime() - lastConfirmedAt.getTime()) / DAY_MS;
  return 0.5 ** (ageDays / DECAY_HALF_LIFE_DAYS[kind]);
}

/** A note past validUntil is never recalled. */
export function isExpired(validUntil: Date | null | undefined, now: Date): boolean {
  return validUntil != null && validUntil.getTime() <= now.getTime();
}
