import type { Proposal } from '../src/contracts/episode.ts';
import type { NoteContent } from '../src/contracts/note.ts';
import { confirm } from './confidence.ts';
import { resolveConflict } from './conflicts.ts';
import { contentTokens, jaccard } from './text.ts';

/** Claims this similar in one scope and kind are the same claim: reinforce, don't create. @default 0.8 */
export const NEAR_DUPLICATE_SIMILARITY = 0.8;
/** Facts or constraints in one scope this similar but not duplicates are about the same thing and disagree. @default 0.25 */
export const CONFLICT_SIMILARITY = 0.25;
/**
 * Two things a user said in conversation overlap in words far more often than two corrections
 * do without disagreeing ("I went camping" / "camping with my kids"), so statements need this
 * much more overlap before one supersedes the other. @default 0.5
 */
export const STATEMENT_CONFLICT_SIMILARITY = 0.5;

function conflictThreshold(a: NoteContent, b: NoteContent): number {
  return a.sourceKind === 'user_statement' && b.sourceKind === 'user_statement'
    ? STATEMENT_CONFLICT_SIMILARITY
    : CONFLICT_SIMILARITY;
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

const CONFLICTING_KINDS = new Set(['fact', 'constraint', 'preference']);

export interface KnownNote {
  noteId: string;
  version: number;
  /** Current status; only active notes are reinforced or contend in conflicts. @default 'active' */
  status?: string;
  content: NoteContent & { sourceCount: number };
}

/**
 * Replaying records a note already cites teaches nothing new: a proposal whose claim
 * near-duplicates a known note (whatever its status) and whose evidence that note already
 * cites is dropped, so a re-run neither duplicates notes nor inflates their source counts.
 */
export function alreadyKnown(p: Proposal, known: readonly KnownNote[]): boolean {
  const tokens = contentTokens(p.content.claim);
  return known.some((n) => {
    if (n.content.scope.level !== p.content.scope.level || n.content.scope.key !== p.content.scope.key) return false;
    if (jaccard(tokens, contentTokens(n.content.claim)) < NEAR_DUPLICATE_SIMILARITY) return false;
    const cited = new Set(n.content.evidence.map((e) => e.recordId));
    return p.content.evidence.every((e) => cited.has(e.recordId));
  });
}

/**
 * Turns accepted creates into the operations that keep memory consistent: a near-duplicate of a
 * known note reinforces it; a create that disagrees with a known note in the same scope goes
 * through the conflict rule and the loser is superseded (never deleted). Creates are taken in
 * order of their latest evidence so the outcome does not depend on batch order.
 * `newId` gives the note id of each create (ids are assigned by the caller, so retries reuse them).
 */
export function reconcile(
  proposals: readonly Proposal[],
  known: readonly KnownNote[],
  newId: (p: Proposal) => string,
): Proposal[] {
  const notes = known
    .filter((n) => (n.status ?? 'active') === 'active')
    .map((n) => ({ ...n, content: { ...n.content } }));
  const out: Proposal[] = [];
  const creates = proposals
    .filter((p) => p.op === 'create' && !alreadyKnown(p, known))
    .sort((a, b) => a.content.lastConfirmedAt.localeCompare(b.content.lastConfirmedAt));
  for (const p of proposals.filter((x) => x.op !== 'create'))
    out.push(p.op === 'revise' ? chainRevision(p, notes, known) : p);
  for (const p of creates) {
    const tokens = contentTokens(p.content.claim);
    const sameScope = notes.filter(
      (n) =>
        n.content.scope.level === p.content.scope.level &&
        n.content.scope.key === p.content.scope.key &&
        n.content.kind === p.content.kind,
    );
    const scored = sameScope
      .map((n) => ({ n, sim: jaccard(tokens, contentTokens(n.content.claim)) }))
      .sort((a, b) => b.sim - a.sim);
    const best = scored[0];
    if (best && best.sim >= NEAR_DUPLICATE_SIMILARITY) {
      out.push(reinforce(best.n, p));
      best.n.version += 1;
      continue;
    }
    const noteId = newId(p);
    const created = { noteId, version: 1, content: { ...p.content, sourceCount: p.content.sourceCount ?? 1 } };
    out.push({ ...p, noteId });
    notes.push(created);
    const rival = CONFLICTING_KINDS.has(p.content.kind)
      ? scored.find((s) => s.sim >= conflictThreshold(p.content, s.n.content))
      : undefined;
    if (rival) out.push(...supersedeLoser(created, rival.n, notes));
  }
  return out;
}

/**
 * Two findings in one batch may revise the same note (two failures after recalling it). Each
 * revision was written against the note as it was before the batch; applied in order, the later
 * one expects the version the earlier one creates and carries the earlier one's changes: evidence
 * is joined, and confidence moves by the same factor from where the earlier one left it.
 */
function chainRevision(p: Proposal, notes: KnownNote[], known: readonly KnownNote[]): Proposal {
  const n = notes.find((x) => x.noteId === p.noteId);
  const original = known.find((x) => x.noteId === p.noteId);
  if (!n || !original) return p;
  const base = n.content;
  const content =
    n.version !== p.expectedVersion
      ? {
          ...p.content,
          evidence: capEvidence([
            ...new Map([...base.evidence, ...p.content.evidence].map((r) => [r.recordId, r])).values(),
          ]),
          confidence: base.confidence * (p.content.confidence / Math.max(1e-9, original.content.confidence)),
        }
      : p.content;
  n.version += 1;
  n.content = { ...content, sourceCount: content.sourceCount ?? base.sourceCount };
  return { ...p, expectedVersion: n.version - 1, content };
}

function reinforce(n: KnownNote, p: Proposal): Proposal {
  const refs = new Map([...n.content.evidence, ...p.content.evidence].map((r) => [r.recordId, r]));
  n.content = {
    ...n.content,
    evidence: capEvidence([...refs.values()]),
    sourceCount: n.content.sourceCount + 1,
    confidence: confirm(n.content.confidence, n.content.sourceKind),
    lastConfirmedAt:
      p.content.lastConfirmedAt > n.content.lastConfirmedAt ? p.content.lastConfirmedAt : n.content.lastConfirmedAt,
  };
  return {
    op: 'reinforce',
    noteId: n.noteId,
    expectedVersion: n.version,
    content: n.content,
    finding: p.finding,
    reason: `confirmed again: ${p.reason}`,
  };
}

function supersedeLoser(created: KnownNote, rival: KnownNote, notes: KnownNote[]): Proposal[] {
  const contender = (n: KnownNote) => ({
    id: n.noteId,
    sourceKind: n.content.sourceKind,
    independentSources: n.content.sourceCount,
    observedAt: new Date(n.content.lastConfirmedAt),
    confidence: n.content.confidence,
  });
  const decision = resolveConflict(contender(created), contender(rival));
  const loser = decision.loser === created.noteId ? created : rival;
  const winner = loser === created ? rival : created;
  const index = notes.indexOf(loser);
  if (index >= 0) notes.splice(index, 1);
  return [
    {
      op: 'supersede',
      noteId: loser.noteId,
      expectedVersion: loser.version,
      content: { ...loser.content, contradictedAt: winner.content.lastConfirmedAt },
      supersededBy: winner.noteId,
      finding: 'factual_conflict',
      reason: `superseded by ${winner.noteId} (decided by ${decision.decidedBy})`,
    },
  ];
}
