import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../../policies/attribution.ts';
import { CONTRADICTION_FACTOR } from '../../../policies/confidence.ts';
import { reconcile } from '../../../policies/reconcile.ts';
import type { Episode } from '../../../src/contracts/episode.ts';
import { demoRecords } from '../../../tools/demo/sample.ts';
import { createDeterministicEngine } from '../../../src/engine/deterministic.ts';
import type { ActiveNote } from '../../../src/engine/types.ts';
import { archived, toEpisodes } from '../../helpers/episodes.ts';

// Two failed tasks that both recalled the same note before failing, replayed in one batch.
const episodes = toEpisodes(archived(demoRecords()));
const failed = ['acme/acme-s1-t1', 'acme/acme-s6-t1'].map((key) => episodes.find((e) => e.key === key) as Episode);
const withRecall = failed.map((ep) => {
  const used = {
    ...ep.records[0]!,
    record: { ...ep.records[0]!.record, kind: 'memory_used' as const, payload: { noteIds: ['N-cents'] } },
  };
  return { ...ep, records: [used, ...ep.records.slice(1)] };
});
const note: ActiveNote = {
  noteId: 'N-cents',
  version: 4,
  content: {
    scope: { level: 'task_type', key: 'billing' },
    kind: 'fact',
    claim: 'Billing API amounts are in cents.',
    evidence: [withRecall[0]!.records[1]!.ref],
    sourceKind: 'user_correction',
    confidence: 0.9,
    importance: 0.9,
    validFrom: '2026-11-01T00:00:00Z',
    lastConfirmedAt: '2026-11-01T00:00:00Z',
    sourceCount: 3,
  },
};

async function revisions(notes: ActiveNote[]) {
  const findings = withRecall.flatMap((e) => attributeEpisode(e)).filter((f) => f.type === 'outdated_constraint');
  const { proposals } = await createDeterministicEngine().propose({
    episodes: withRecall,
    findings,
    activeNotes: notes,
    now: new Date('2026-11-06T00:00:00Z'),
  });
  return proposals;
}

describe('contradictions of one note in one batch', () => {
  it('chain: the second expects the version the first creates, and confidence falls twice', async () => {
    const proposals = await revisions([note]);
    expect(proposals).toHaveLength(2);
    const ops = reconcile(proposals, [{ ...note, status: 'active' }], () => 'unused');
    expect(ops.map((o) => [o.op, o.noteId, o.expectedVersion])).toEqual([
      ['revise', 'N-cents', 4],
      ['revise', 'N-cents', 5],
    ]);
    expect(ops[1]?.content.confidence).toBeCloseTo(0.9 * CONTRADICTION_FACTOR * CONTRADICTION_FACTOR, 9);
    const second = new Set(ops[1]?.content.evidence.map((e) => e.recordId));
    for (const e of ops[0]!.content.evidence) expect(second.has(e.recordId)).toBe(true);
  });

  it('a failure the note already cites is not a new contradiction (a re-run changes nothing)', async () => {
    const [first] = reconcile(await revisions([note]), [{ ...note, status: 'active' }], () => 'unused');
    const afterFirst: ActiveNote = {
      noteId: 'N-cents',
      version: 5,
      content: { ...note.content, ...first!.content, sourceCount: 3 },
    };
    const again = await revisions([afterFirst]);
    expect(again).toHaveLength(1);
    expect(again[0]?.expectedVersion).toBe(5);
  });

  it('a note that has nothing to do with what went wrong is not contradicted, though it was recalled', async () => {
    const unrelated: ActiveNote = {
      ...note,
      content: { ...note.content, claim: 'crm.export times out with pageSize 1000; pageSize 200 works.' },
    };
    expect(await revisions([unrelated])).toEqual([]);
  });
});
