import type { ArchivedRecord, Episode, Proposal } from '../src/contracts/episode.ts';
import type { TrackedNote } from './lifecycle-chain.ts';
import { contentTokens, recordText } from './text.ts';

/**
 * Success after a recall: a task that recalled notes and then succeeded confirms the recalled
 * notes that had to do with it, once per episode (the outcome record becomes their evidence, so
 * a re-run over the same episode finds it cited and proposes nothing).
 */

/** Words a recalled note's claim must share with the task's records before its success counts for the note. @default 2 */
export const RELATED_SUCCESS_MIN_SHARED_WORDS = 2;

/**
 * Reinforcements for the notes `recalled` (note ids from the episode's `memory_used` records and
 * the recall API's usage log) when the episode ended in success. A note that is not active, that
 * already cites the outcome, or that shares too few words with the task (recall returns its top
 * k, related or not) is left alone.
 */
export function successAfterRecall(
  episode: Episode,
  recalled: readonly string[],
  notes: readonly TrackedNote[],
): Proposal[] {
  const outcome = successOutcome(episode);
  if (!outcome || recalled.length === 0) return [];
  const taskWords = new Set(
    contentTokens(
      episode.records
        .filter((r) => r.record.kind !== 'memory_used')
        .map((r) => recordText(r.record))
        .join(' '),
    ),
  );
  const byId = new Map(notes.map((n) => [n.noteId, n]));
  return [...new Set(recalled)].flatMap((noteId) => {
    const n = byId.get(noteId);
    if (!n || (n.status ?? 'active') !== 'active') return [];
    if (n.content.evidence.some((e) => e.recordId === outcome.ref.recordId)) return [];
    const shared = new Set(contentTokens(n.content.claim).filter((t) => taskWords.has(t)));
    if (shared.size < RELATED_SUCCESS_MIN_SHARED_WORDS) return [];
    return [
      {
        op: 'reinforce' as const,
        noteId,
        expectedVersion: n.version,
        content: { ...n.content, evidence: [outcome.ref], lastConfirmedAt: outcome.record.observedAt },
        finding: 'recall_success' as const,
        reason: `recalled before a task that succeeded (${episode.key})`,
      },
    ];
  });
}

/** The episode's success outcome, unless something went wrong before it (a failure or a correction). */
function successOutcome(episode: Episode): ArchivedRecord | undefined {
  const troubled = episode.records.some(
    (r) => r.record.kind === 'error' || r.record.kind === 'user_correction' || r.record.outcome?.status === 'failure',
  );
  if (troubled) return undefined;
  return episode.records.find((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'success');
}
