import { contentTokens, recordText } from '../../../policies/text.ts';
import type { ArchivedRecord, Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { ActiveNote } from '../types.ts';

/** A finding the model writes about, with the deterministic proposal it falls back to. */
export interface BatchItem {
  finding: Finding;
  episode: Episode;
  fallback: Proposal;
}

/**
 * What one model call sees: the findings' records numbered once each (the model cites them by
 * number, never by id), which numbers belong to which finding, and the active notes it may
 * revise, reinforce or retire. Nothing outside this view can be cited or changed.
 */
export interface BatchView {
  items: BatchItem[];
  /** Record n is `records[n - 1]`. */
  records: ArchivedRecord[];
  /** Per item, the numbers of its finding's records. */
  recordNumbers: number[][];
  notes: ActiveNote[];
}

export function buildBatchView(
  items: BatchItem[],
  activeNotes: readonly ActiveNote[],
  limits: { maxNotes: number; hidden: ReadonlySet<string> },
): BatchView {
  const numberOf = new Map<string, number>();
  const records: ArchivedRecord[] = [];
  const recordNumbers = items.map((it) =>
    it.finding.evidence.map((e) => {
      const known = numberOf.get(e.ref.recordId);
      if (known !== undefined) return known;
      records.push(e);
      numberOf.set(e.ref.recordId, records.length);
      return records.length;
    }),
  );
  const notes = relevantNotes(items, records, activeNotes, limits);
  return { items, records, recordNumbers, notes };
}

/**
 * The active notes worth showing, most related first: notes the episodes recalled, and notes in a
 * scope the episodes touch that share words with the records. Notes changed earlier in the same
 * call (`hidden`) are left out, so no note is changed twice against one version.
 */
function relevantNotes(
  items: readonly BatchItem[],
  records: readonly ArchivedRecord[],
  activeNotes: readonly ActiveNote[],
  limits: { maxNotes: number; hidden: ReadonlySet<string> },
): ActiveNote[] {
  const recalled = new Set(items.flatMap((it) => it.finding.noteIds ?? []));
  const scopes = scopeKeys(items, records);
  const words = new Set(records.flatMap((r) => contentTokens(`${recordText(r.record)} ${r.record.userId ?? ''}`)));
  return activeNotes
    .filter((n) => !limits.hidden.has(n.noteId))
    .map((n) => ({ n, shared: new Set(contentTokens(noteText(n)).filter((t) => words.has(t))).size }))
    .filter(({ n, shared }) => recalled.has(n.noteId) || (scopes.has(scopeKey(n)) && shared > 0))
    .sort((a, b) => Number(recalled.has(b.n.noteId)) - Number(recalled.has(a.n.noteId)) || b.shared - a.shared)
    .slice(0, limits.maxNotes)
    .map(({ n }) => n);
}

const noteText = (n: ActiveNote): string => {
  const s = n.content.structure;
  return s ? `${n.content.claim} ${s.subject.id} ${s.attribute} ${s.value}` : n.content.claim;
};

const scopeKey = (n: ActiveNote): string => `${n.content.scope.level}:${n.content.scope.key}`;

function scopeKeys(items: readonly BatchItem[], records: readonly ArchivedRecord[]): Set<string> {
  const keys = new Set<string>();
  for (const { episode: ep } of items) {
    keys.add(`tenant:${ep.tenantId}`);
    keys.add(`session:${ep.sessionId}`);
    keys.add(`agent:${ep.agentId}`);
    if (ep.userId) keys.add(`user:${ep.userId}`);
    if (ep.taskType) keys.add(`task_type:${ep.taskType}`);
  }
  // In a conversation between people, each speaker's notes are in their own user scope.
  for (const r of records) if (r.record.userId) keys.add(`user:${r.record.userId}`);
  return keys;
}
