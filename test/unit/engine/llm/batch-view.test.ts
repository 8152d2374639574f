import { describe, expect, it } from 'vitest';
import type { Episode, Finding, Proposal } from '../../../../src/contracts/episode.ts';
import { buildBatchView, type BatchItem } from '../../../../src/engine/llm/batch-view.ts';
import { activeNotes, episodes, findings as F, notes, rec } from '../../../helpers/llm-fixtures.ts';

const item = (finding: Finding): BatchItem => ({
  finding,
  episode: episodes.find((e) => e.key === finding.episodeKey) as Episode,
  fallback: {} as Proposal,
});
const view = (findings: Finding[], limits: { maxNotes?: number; hidden?: string[] } = {}) =>
  buildBatchView(findings.map(item), activeNotes, {
    maxNotes: limits.maxNotes ?? 6,
    hidden: new Set(limits.hidden ?? []),
  });

describe('the batch a model sees', () => {
  it('numbers each record once, in the order findings cite them', () => {
    const shared: Finding = { ...F.trip, evidence: [rec.seat, rec.trip] };
    const v = view([F.seat, shared]);
    expect(v.records).toEqual([rec.seat, rec.trip]);
    expect(v.recordNumbers).toEqual([[1], [1, 2]]);
  });

  it.each<[string, Finding[], { maxNotes?: number; hidden?: string[] }, string[]]>([
    ['notes in the episodes’ scopes that share words with the records', [F.seat, F.trip], {}, ['N-seat', 'N-trip']],
    ['not a note of another scope', [F.group], {}, []],
    ['not a tenant-wide note about something else', [F.refund], {}, ['N-refund']],
    ['at most maxNotes, most related first', [F.seat, F.refund], { maxNotes: 1 }, ['N-refund']],
    ['not a note already changed in this call', [F.seat, F.trip], { hidden: ['N-seat'] }, ['N-trip']],
  ])('shows %s', (_case, findings, limits, shown) => {
    expect(view(findings, limits).notes.map((n) => n.noteId)).toEqual(shown);
  });

  it('shows a note the episode recalled even when it shares no words', () => {
    const recalled: Finding = { ...F.group, noteIds: [notes.crm.noteId] };
    expect(view([recalled]).notes.map((n) => n.noteId)).toEqual(['N-crm']);
  });
});
