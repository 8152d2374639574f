import { describe, expect, it } from 'vitest';
import { CONTRADICTION_FACTOR } from '../../../policies/confidence.ts';
import { feedbackProposals, type FeedbackSignal } from '../../../policies/lifecycle-feedback.ts';
import type { TrackedNote } from '../../../policies/lifecycle-chain.ts';

const ref = (n: number) => ({
  recordId: `01JD00000000000000000000${String(n).padStart(2, '0')}`,
  objectKey: 'raw/tenant=t/date=2026-11-02/api-1.jsonl.gz',
  line: 1,
  contentHash: 'b'.repeat(64),
});

const note = (over: Partial<TrackedNote> = {}): TrackedNote => ({
  noteId: 'n1',
  version: 3,
  status: 'active',
  content: {
    scope: { level: 'tenant', key: 't' },
    kind: 'fact',
    claim: 'Billing amounts are in cents.',
    evidence: [ref(1)],
    sourceKind: 'user_correction',
    confidence: 0.8,
    importance: 0.5,
    validFrom: '2026-11-01T00:00:00.000Z',
    lastConfirmedAt: '2026-11-01T00:00:00.000Z',
    sourceCount: 2,
  },
  ...over,
});

const signal = (verdict: FeedbackSignal['verdict'], over: Partial<FeedbackSignal> = {}): FeedbackSignal => ({
  feedbackId: 'f1',
  noteId: 'n1',
  verdict,
  evidence: ref(7),
  at: '2026-11-05T10:00:00.000Z',
  ...over,
});

describe('feedbackProposals', () => {
  it.each<[string, FeedbackSignal, TrackedNote, Record<string, unknown> | undefined]>([
    [
      '"wrong" contradicts the note',
      signal('wrong'),
      note(),
      { op: 'revise', expectedVersion: 3, finding: 'outdated_constraint', contradictedAt: '2026-11-05T10:00:00.000Z' },
    ],
    [
      '"helped" confirms the note',
      signal('helped'),
      note(),
      { op: 'reinforce', expectedVersion: 3, finding: 'recall_success', lastConfirmedAt: '2026-11-05T10:00:00.000Z' },
    ],
    ['feedback the note already cites is not counted again', signal('wrong', { evidence: ref(1) }), note(), undefined],
    ['a retired note is left alone', signal('wrong'), note({ status: 'retired' }), undefined],
    ['feedback on another note does nothing here', signal('helped', { noteId: 'n2' }), note(), undefined],
  ])('%s', (_name, f, n, expected) => {
    const [p, ...rest] = feedbackProposals([f], [n]);
    expect(rest).toEqual([]);
    if (!expected) return expect(p).toBeUndefined();
    const { contradictedAt, lastConfirmedAt, ...head } = expected;
    expect(p).toMatchObject({ noteId: 'n1', ...head });
    if (contradictedAt) expect(p!.content.contradictedAt).toBe(contradictedAt);
    if (lastConfirmedAt) expect(p!.content.lastConfirmedAt).toBe(lastConfirmedAt);
    expect(p!.content.evidence.map((e) => e.recordId)).toContain(f.evidence.recordId);
  });

  it('a contradiction lowers the confidence by the contradiction factor', () => {
    const [p] = feedbackProposals([signal('wrong')], [note()]);
    expect(p!.content.confidence).toBeCloseTo(0.8 * CONTRADICTION_FACTOR, 9);
  });
});
