import type { Proposal } from '../src/contracts/episode.ts';
import { resolveConflict } from './conflicts.ts';
import {
  capEvidence,
  chainReinforcement,
  chainRevision,
  EVIDENCE_KEEP_FIRST,
  EVIDENCE_KEEP_LATEST,
  reinforceNote,
  type TrackedNote,
} from './lifecycle-chain.ts';
import { claimWords, NEAR_DUPLICATE_SIMILARITY, relate } from './lifecycle-match.ts';
import { withExpiry } from './lifecycle-ttl.ts';
import { jaccard } from './text.ts';

export { capEvidence, EVIDENCE_KEEP_FIRST, EVIDENCE_KEEP_LATEST };
export { CONFLICT_SIMILARITY, NEAR_DUPLICATE_SIMILARITY, STATEMENT_CONFLICT_SIMILARITY } from './lifecycle-match.ts';

export type KnownNote = TrackedNote;

/** The text of the records a proposal cites, when the caller has them (see `relate`). */
export type EvidenceText = (p: Proposal) => string | undefined;

/**
 * Replaying records a note already cites teaches nothing new: a proposal whose claim
 * near-duplicates a known note (whatever its status) and whose evidence that note already
 * cites is dropped, so a re-run neither duplicates notes nor inflates their source counts.
 */
export function alreadyKnown(p: Proposal, known: readonly KnownNote[]): boolean {
  const words = claimWords(p.content.claim);
  return known.some((n) => {
    if (n.content.scope.level !== p.content.scope.level || n.content.scope.key !== p.content.scope.key) return false;
    const restated =
      jaccard(words, claimWords(n.content.claim)) >= NEAR_DUPLICATE_SIMILARITY ||
      relate(p.content, n.content) === 'restates';
    if (!restated) return false;
    const cited = new Set(n.content.evidence.map((e) => e.recordId));
    return p.content.evidence.every((e) => cited.has(e.recordId));
  });
}

/**
 * Turns accepted proposals into the operations that keep memory consistent. Changes to known
 * notes (contradictions, reinforcements after a success) chain per note; a failure whose own
 * lesson does not contradict the recalled note does not count against it. Each create is compared with the active notes of
 * its scope and kind (`relate`): a restatement reinforces the known note, a contradiction goes
 * through the conflict rule and the loser is superseded (never deleted), anything else is a new
 * note, with its expiry from the evidence. Creates are taken in order of their latest evidence
 * so the outcome does not depend on batch order. `newId` gives the note id of each create.
 */
export function reconcile(
  proposals: readonly Proposal[],
  known: readonly KnownNote[],
  newId: (p: Proposal) => string,
  evidenceText: EvidenceText = () => undefined,
): Proposal[] {
  const notes = known
    .filter((n) => (n.status ?? 'active') === 'active')
    .map((n) => ({ ...n, content: { ...n.content } }));
  const out: Proposal[] = [];
  const lessons = lessonsByRecord(proposals, evidenceText);
  for (const p of proposals.filter((x) => x.op !== 'create')) {
    const changed = changeKnown(p, notes, known, lessons);
    if (changed) out.push(changed);
  }
  const creates = proposals
    .filter((p) => p.op === 'create' && !alreadyKnown(p, known))
    .sort((a, b) => a.content.lastConfirmedAt.localeCompare(b.content.lastConfirmedAt));
  for (const p of creates) out.push(...placeCreate(p, notes, newId, evidenceText(p)));
  return out;
}

function active(notes: TrackedNote[]): TrackedNote[] {
  return notes.filter((n) => (n.status ?? 'active') === 'active');
}

function changeKnown(
  p: Proposal,
  notes: TrackedNote[],
  known: readonly KnownNote[],
  lessons: LessonsByRecord,
): Proposal | undefined {
  if (p.op !== 'revise' && p.op !== 'reinforce') return p;
  const n = notes.find((x) => x.noteId === p.noteId);
  const original = known.find((x) => x.noteId === p.noteId);
  if (!n || !original) return p.op === 'revise' ? p : undefined;
  // Retired earlier in this batch: nothing more to say about it.
  if ((n.status ?? 'active') !== 'active') return undefined;
  if (p.op === 'reinforce') return chainReinforcement(p, n);
  if (p.content.contradictedAt && !lessonContradicts(p, n, lessons)) return undefined;
  return chainRevision(p, n, original);
}

/** For each record, the notes proposed from it (new or already known), with the text of their evidence. */
type LessonsByRecord = Map<string, Array<{ p: Proposal; text: string | undefined }>>;

function lessonsByRecord(proposals: readonly Proposal[], evidenceText: EvidenceText): LessonsByRecord {
  const out: LessonsByRecord = new Map();
  for (const p of proposals.filter((x) => x.op === 'create')) {
    const lesson = { p, text: evidenceText(p) };
    for (const e of p.content.evidence) out.set(e.recordId, [...(out.get(e.recordId) ?? []), lesson]);
  }
  return out;
}

/**
 * A task failed after recalling the note. When what went wrong taught a lesson of its own (the
 * correction or error became a proposed note), the failure counts against the recalled note only
 * if that lesson contradicts it: a correction that says what the note says means the agent failed
 * despite the note, and one about another thing ("refunds are already in dollars" after recalling
 * "billing amounts are in cents") says nothing of it. A failure that taught nothing counts as the
 * engine proposed.
 */
function lessonContradicts(p: Proposal, n: TrackedNote, lessons: LessonsByRecord): boolean {
  const cited = new Set(n.content.evidence.map((e) => e.recordId));
  const taught = p.content.evidence.filter((e) => !cited.has(e.recordId)).flatMap((e) => lessons.get(e.recordId) ?? []);
  if (taught.length === 0) return true;
  return taught.some((l) => relate(l.p.content, n.content, l.text) === 'contradicts');
}

function sameScopeAndKind(p: Proposal, notes: readonly TrackedNote[]): TrackedNote[] {
  return notes.filter(
    (n) =>
      n.content.scope.level === p.content.scope.level &&
      n.content.scope.key === p.content.scope.key &&
      n.content.kind === p.content.kind,
  );
}

function placeCreate(
  p: Proposal,
  notes: TrackedNote[],
  newId: (p: Proposal) => string,
  freshEvidence: string | undefined,
): Proposal[] {
  const words = claimWords(p.content.claim);
  const related = sameScopeAndKind(p, active(notes))
    .map((n) => ({
      n,
      relation: relate(p.content, n.content, freshEvidence),
      similarity: jaccard(words, claimWords(n.content.claim)),
    }))
    .sort((a, b) => b.similarity - a.similarity);
  const restated = related.find((r) => r.relation === 'restates');
  if (restated) {
    const expectedVersion = restated.n.version;
    const content = reinforceNote(restated.n, p.content.evidence, p.content.lastConfirmedAt);
    return [
      {
        op: 'reinforce',
        noteId: restated.n.noteId,
        expectedVersion,
        content,
        finding: p.finding,
        reason: `confirmed again: ${p.reason}`,
      },
    ];
  }
  const noteId = newId(p);
  const content = withExpiry({ ...p.content, sourceCount: p.content.sourceCount ?? 1 });
  const created: TrackedNote = { noteId, version: 1, content };
  const out: Proposal[] = [{ ...p, noteId, content }];
  notes.push(created);
  for (const rival of related.filter((r) => r.relation === 'contradicts')) {
    const loser = supersedeLoser(created, rival.n);
    out.push(loser);
    if (loser.noteId === created.noteId) break;
  }
  return out;
}

function supersedeLoser(created: TrackedNote, rival: TrackedNote): Proposal {
  const contender = (n: TrackedNote) => ({
    id: n.noteId,
    sourceKind: n.content.sourceKind,
    independentSources: n.content.sourceCount,
    observedAt: new Date(n.content.lastConfirmedAt),
    confidence: n.content.confidence,
  });
  const decision = resolveConflict(contender(created), contender(rival));
  const loser = decision.loser === created.noteId ? created : rival;
  const winner = loser === created ? rival : created;
  const expectedVersion = loser.version;
  loser.status = 'superseded';
  loser.version += 1;
  return {
    op: 'supersede',
    noteId: loser.noteId,
    expectedVersion,
    content: { ...loser.content, contradictedAt: winner.content.lastConfirmedAt },
    supersededBy: winner.noteId,
    finding: 'factual_conflict',
    reason: `superseded by ${winner.noteId} (decided by ${decision.decidedBy})`,
  };
}
