import { describe, expect, it } from 'vitest';
import { foldConfirmations } from '../../../policies/lifecycle-chain.ts';
import { reconcile, type KnownNote } from '../../../policies/reconcile.ts';
import type { Proposal } from '../../../src/contracts/episode.ts';
import type { NoteContent } from '../../../src/contracts/note.ts';

// A batch's operations, with a note's confirmations in a row written as one version.

const ref = (n: number) => ({
  recordId: `01JD00000000000000000000${String(n).padStart(2, '0')}`,
  objectKey: 'raw/tenant=t/date=2026-11-02/unit-1.jsonl.gz',
  line: n,
  contentHash: 'a'.repeat(64),
});

function content(claim: string, n: number, sourceCount = 1): NoteContent & { sourceCount: number } {
  return {
    scope: { level: 'task_type', key: 'invoice_report' },
    kind: 'fact',
    claim,
    evidence: [ref(n)],
    sourceKind: 'user_correction',
    confidence: 0.8,
    importance: 0.9,
    validFrom: '2026-11-02T08:00:00.000Z',
    lastConfirmedAt: `2026-11-${String(n).padStart(2, '0')}T08:00:00.000Z`,
    sourceCount,
  };
}

const op = (o: Partial<Proposal> & Pick<Proposal, 'op'>, n: number): Proposal => ({
  content: content(`claim ${n}`, n),
  finding: 'factual_conflict',
  reason: `r${n}`,
  ...o,
});

describe('foldConfirmations', () => {
  it('confirmations of a known note in a row become the last one, expecting the first one’s version', () => {
    const folded = foldConfirmations([
      op({ op: 'reinforce', noteId: 'N1', expectedVersion: 3 }, 1),
      op({ op: 'create', noteId: 'N2' }, 2),
      op({ op: 'reinforce', noteId: 'N1', expectedVersion: 4 }, 3),
      op({ op: 'reinforce', noteId: 'N1', expectedVersion: 5 }, 4),
    ]);
    expect(folded.map((o) => [o.op, o.noteId, o.expectedVersion, o.content.claim])).toEqual([
      ['reinforce', 'N1', 3, 'claim 4'],
      ['create', 'N2', undefined, 'claim 2'],
    ]);
    expect(folded[0]?.reason).toBe('r4 (3 confirmations in one batch)');
  });

  it('a note created in the batch is created confirmed; a later change to it expects one version fewer', () => {
    const folded = foldConfirmations([
      op({ op: 'create', noteId: 'N1' }, 1),
      op({ op: 'reinforce', noteId: 'N1', expectedVersion: 1 }, 2),
      op({ op: 'supersede', noteId: 'N1', expectedVersion: 2, supersededBy: 'N2' }, 3),
    ]);
    expect(folded.map((o) => [o.op, o.expectedVersion, o.content.claim, o.reason])).toEqual([
      ['create', undefined, 'claim 2', 'r1'],
      ['supersede', 1, 'claim 3', 'r3'],
    ]);
  });

  it('a confirmation after another change is its own version: a revision stands between them', () => {
    const ops = [
      op({ op: 'reinforce', noteId: 'N1', expectedVersion: 1 }, 1),
      op({ op: 'revise', noteId: 'N1', expectedVersion: 2 }, 2),
      op({ op: 'reinforce', noteId: 'N1', expectedVersion: 3 }, 3),
      op({ op: 'create', noteId: 'N2' }, 4),
      op({ op: 'quarantine', noteId: 'N3' }, 5),
    ];
    expect(foldConfirmations(ops)).toEqual(ops);
  });

  it('three rewordings of a known lesson in one batch: one version with three more sources and all the evidence', () => {
    const known: KnownNote = {
      noteId: 'N1',
      version: 2,
      content: content('Amounts from the billing API are in cents; divide by 100.', 1, 2),
    };
    const rewordings = [2, 3, 4].map((n) => ({
      op: 'create' as const,
      content: content('The billing API returns cents. Divide every amount by 100.', n),
      finding: 'factual_conflict' as const,
      reason: `seen in episode ${n}`,
    }));
    const chained = reconcile(rewordings, [known], () => 'N-new');
    expect(chained.map((o) => o.expectedVersion)).toEqual([2, 3, 4]);
    const [one, ...rest] = foldConfirmations(chained);
    expect(rest).toEqual([]);
    expect(one).toMatchObject({ op: 'reinforce', noteId: 'N1', expectedVersion: 2 });
    expect(one?.content.sourceCount).toBe(5);
    expect(one?.content.evidence.map((e) => e.line)).toEqual([1, 2, 3, 4]);
    expect(one?.content.confidence).toBe(chained.at(-1)?.content.confidence);
    expect(one?.content.confidence).toBeGreaterThan(0.8);
  });
});
