import type { Proposal } from '../src/contracts/episode.ts';
import type { EvidenceRef, NoteContent } from '../src/contracts/note.ts';
import { confirm } from './confidence.ts';
import { contradictionOutcome } from './lifecycle-contradiction.ts';

/**
 * Changes to one note within a batch, applied in order: each is written against the version the
 * previous one creates, so a batch that confirms a note twice or contradicts it twice commits.
 */

/** A known note as reconciliation tracks it while it walks a batch. */
export interface TrackedNote {
  noteId: string;
  version: number;
  /** Current status; only active notes are reinforced or contend in conflicts. @default 'active' */
  status?: string;
  content: NoteContent & { sourceCount: number };
}

/**
 * Evidence refs a version keeps: the first ones (where the note came from) and the latest
 * (what confirms it now); `sourceCount` keeps counting past the cap. Without a cap a recurring
 * lesson copies an ever longer list into every version (quadratic storage and commit time).
 * Re-running over records whose refs fell out of the list can count them again. @default 10 + 40
 */
export const EVIDENCE_KEEP_FIRST = 10;
export const EVIDENCE_KEEP_LATEST = 40;

export function capEvidence<T>(refs: readonly T[]): T[] {
  if (refs.length <= EVIDENCE_KEEP_FIRST + EVIDENCE_KEEP_LATEST) return [...refs];
  return [...refs.slice(0, EVIDENCE_KEEP_FIRST), ...refs.slice(-EVIDENCE_KEEP_LATEST)];
}

export function joinEvidence(a: readonly EvidenceRef[], b: readonly EvidenceRef[]): EvidenceRef[] {
  return capEvidence([...new Map([...a, ...b].map((r) => [r.recordId, r])).values()]);
}

/** Confirms the note with new evidence (a rewording of it, or a success after recalling it): one more source, more confidence. */
export function reinforceNote(n: TrackedNote, evidence: readonly EvidenceRef[], confirmedAt: string): NoteContent {
  n.content = {
    ...n.content,
    evidence: joinEvidence(n.content.evidence, evidence),
    sourceCount: n.content.sourceCount + 1,
    confidence: confirm(n.content.confidence, n.content.sourceKind),
    lastConfirmedAt: confirmedAt > n.content.lastConfirmedAt ? confirmedAt : n.content.lastConfirmedAt,
  };
  n.version += 1;
  return n.content;
}

/**
 * A revision (a contradiction after a failed task) written against the note as it was before the
 * batch. Applied after other changes in this batch, it carries them: evidence is joined, and
 * confidence moves by the same factor from where they left it. A contradiction that takes the
 * confidence below the retirement threshold retires the note instead.
 */
export function chainRevision(p: Proposal, n: TrackedNote, original: TrackedNote): Proposal {
  const content =
    n.version !== p.expectedVersion
      ? {
          ...p.content,
          evidence: joinEvidence(n.content.evidence, p.content.evidence),
          confidence: n.content.confidence * (p.content.confidence / Math.max(1e-9, original.content.confidence)),
          sourceCount: n.content.sourceCount,
        }
      : p.content;
  const expectedVersion = n.version;
  n.version += 1;
  n.content = { ...content, sourceCount: content.sourceCount ?? n.content.sourceCount };
  if (contradictionOutcome(content) === 'retire') {
    n.status = 'retired';
    return {
      ...p,
      op: 'retire',
      expectedVersion,
      content,
      reason: `contradicted again, confidence ${content.confidence.toFixed(2)}: ${p.reason}`,
    };
  }
  return { ...p, expectedVersion, content };
}

/** A reinforcement proposed against a known note (a success after recalling it), chained like a revision. */
export function chainReinforcement(p: Proposal, n: TrackedNote): Proposal | undefined {
  const cited = new Set(n.content.evidence.map((e) => e.recordId));
  const fresh = p.content.evidence.filter((e) => !cited.has(e.recordId));
  if (fresh.length === 0) return undefined;
  const expectedVersion = n.version;
  const content = reinforceNote(n, fresh, p.content.lastConfirmedAt);
  return { ...p, op: 'reinforce', expectedVersion, content };
}

/**
 * One version for a note's confirmations in a row within one batch: a lesson that recurs in 20
 * of a batch's episodes is confirmed 20 times, and each confirmation would write a version
 * copying the note's whole evidence list. Each confirmation builds on the one before (one more
 * source, more confidence, evidence joined), so the last holds them all: it alone is written,
 * expecting the version the first expected (a note created in the batch is created with it), and
 * a later change to the note in the batch expects one version fewer for each confirmation folded.
 * Other notes' operations between them do not depend on this note's version.
 */
export function foldConfirmations(ops: readonly Proposal[]): Proposal[] {
  const out: Proposal[] = [];
  /** Per note: where its latest operation is in `out`, when that one may take a confirmation. */
  const foldInto = new Map<string, number>();
  const folded = new Map<string, number>();
  for (const op of ops) {
    const noteId = op.noteId;
    if (noteId === undefined) {
      out.push(op);
      continue;
    }
    const at = foldInto.get(noteId);
    if (op.op === 'reinforce' && at !== undefined) {
      const into = out[at] as Proposal;
      const times = (folded.get(noteId) ?? 0) + 1;
      folded.set(noteId, times);
      out[at] =
        into.op === 'create'
          ? { ...into, content: op.content }
          : {
              ...op,
              expectedVersion: into.expectedVersion,
              reason: `${op.reason} (${times + 1} confirmations in one batch)`,
            };
      continue;
    }
    const shift = folded.get(noteId) ?? 0;
    const shifted =
      shift > 0 && op.expectedVersion !== undefined ? { ...op, expectedVersion: op.expectedVersion - shift } : op;
    if (op.op === 'reinforce' || op.op === 'create') foldInto.set(noteId, out.length);
    else foldInto.delete(noteId);
    out.push(shifted);
  }
  return out;
}
