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
 * notes (contradictions, reinforcements after a success) chain per note; a contradiction from a
 * record that restates the note is dropped. Each create is compared with the active notes of
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
  const confirming = confirmingRecords(proposals, notes, evidenceText);
  for (const p of proposals.filter((x) => x.op !== 'create')) {
    const changed = changeKnown(p, notes, known, confirming);
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
  confirming: Map<string, Set<string>>,
): Proposal | undefined {
  if (p.op !== 'revise' && p.op !== 'reinforce') return p;
  const n = notes.find((x) => x.noteId === p.noteId);
  const original = known.find((x) => x.noteId === p.noteId);
  if (!n || !original) return p.op === 'revise' ? p : undefined;
  // Retired earlier in this batch: nothing more to say about it.
  if ((n.status ?? 'active') !== 'active') return undefined;
  if (p.op === 'reinforce') return chainReinforcement(p, n);
  if (p.content.contradictedAt && restatedBy(p, n, confirming)) return undefined;
  return chainRevision(p, n, original);
}

/**
 * A task failed after recalling the note, and the correction that followed says what the note
 * says: the agent failed despite the note, not because of it, so that is no contradiction.
 */
function restatedBy(p: Proposal, n: TrackedNote, confirming: Map<string, Set<string>>): boolean {
  const records = confirming.get(n.noteId);
  const cited = new Set(n.content.evidence.map((e) => e.recordId));
  return !!records && p.content.evidence.some((e) => !cited.has(e.recordId) && records.has(e.recordId));
}

/** Records whose proposed notes (new or already known) restate a known note, by note id. */
function confirmingRecords(
  proposals: readonly Proposal[],
  notes: readonly TrackedNote[],
  evidenceText: EvidenceText,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of proposals.filter((x) => x.op === 'create')) {
    for (const n of sameScopeAndKind(p, notes)) {
      if (relate(p.content, n.content, evidenceText(p)) !== 'restates') continue;
      const records = out.get(n.noteId) ?? new Set<string>();
      for (const e of p.content.evidence) records.add(e.recordId);
      out.set(n.noteId, records);
    }
  }
  return out;
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
