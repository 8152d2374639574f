import type { Proposal } from '../src/contracts/episode.ts';
import type { EvidenceRef } from '../src/contracts/note.ts';
import { contradict } from './confidence.ts';
import type { TrackedNote } from './lifecycle-chain.ts';

/**
 * What an agent said about a recalled note (`POST /v1/feedback`), read by the next consolidation
 * run: "wrong" counts as a contradiction (confidence falls by the contradiction factor and a note
 * contradicted often enough is retired, as after a failed task), "helped" as a success after
 * recall (one more source, more confidence). Both cite the archived feedback record, so the same
 * feedback is never counted twice.
 */
export interface FeedbackSignal {
  feedbackId: string;
  noteId: string;
  verdict: 'helped' | 'wrong';
  evidence: EvidenceRef;
  at: string;
}

export function feedbackProposals(feedback: readonly FeedbackSignal[], notes: readonly TrackedNote[]): Proposal[] {
  const byId = new Map(notes.map((n) => [n.noteId, n]));
  return feedback.flatMap((f) => {
    const n = byId.get(f.noteId);
    if (!n || (n.status ?? 'active') !== 'active') return [];
    if (n.content.evidence.some((e) => e.recordId === f.evidence.recordId)) return [];
    return [f.verdict === 'wrong' ? contradiction(f, n) : confirmation(f, n)];
  });
}

function contradiction(f: FeedbackSignal, n: TrackedNote): Proposal {
  return {
    op: 'revise',
    noteId: n.noteId,
    expectedVersion: n.version,
    content: {
      ...n.content,
      confidence: contradict(n.content.confidence),
      contradictedAt: f.at,
      evidence: [...n.content.evidence, f.evidence],
    },
    finding: 'outdated_constraint',
    reason: `an agent reported the recalled note wrong (feedback ${f.feedbackId})`,
  };
}

function confirmation(f: FeedbackSignal, n: TrackedNote): Proposal {
  return {
    op: 'reinforce',
    noteId: n.noteId,
    expectedVersion: n.version,
    content: { ...n.content, evidence: [f.evidence], lastConfirmedAt: f.at },
    finding: 'recall_success',
    reason: `an agent reported the recalled note helped (feedback ${f.feedbackId})`,
  };
}
