import { describe, expect, it } from 'vitest';
import { DEFAULT_FUSION_POLICY } from '../../../policies/fusion.ts';
import { DEFAULT_RECALL_SCORE_POLICY, scoreCandidate } from '../../../policies/recall-score.ts';
import type { NoteVersion } from '../../../src/contracts/note.ts';
import type { AssembledItem } from '../../../src/recall/assemble.ts';
import { rankingOf, selectFused, toldOf } from '../../../src/recall/fuse.ts';
import type { RecordRow } from '../../../src/recall/record-queries.ts';

const AT = '2026-06-01T00:00:00.000Z';
const HASH = 'a'.repeat(64);

function note(noteId: string, citing: string[], claim = `claim of ${noteId}`): AssembledItem {
  const version = {
    noteId,
    tenantId: 't',
    version: 1,
    status: 'active',
    scope: { level: 'tenant', key: 't' },
    kind: 'fact',
    claim,
    evidence: citing.map((recordId) => ({ recordId, objectKey: 'k', line: 1, contentHash: HASH })),
    sourceKind: 'tool_fact',
    confidence: 0.8,
    importance: 0.5,
    validFrom: AT,
    validUntil: null,
    supersededBy: null,
    sourceCount: 1,
    lastConfirmedAt: AT,
    contradictedAt: null,
    createdByRun: null,
    createdAt: AT,
  } satisfies NoteVersion;
  const parts = scoreCandidate(
    {
      vectorSimilarity: 0.9,
      lexical: 0,
      confidence: 0.8,
      importance: 0.5,
      kind: 'fact',
      lastConfirmedAt: new Date(AT),
      at: new Date(AT),
    },
    DEFAULT_RECALL_SCORE_POLICY,
  );
  return { version, parts, why: '', tokens: Math.ceil(claim.length / 4), duplicates: [] };
}

function record(recordId: string, text = `text of ${recordId}`, observedAt = AT): RecordRow {
  return {
    recordId,
    objectKey: 'k',
    line: 1,
    contentHash: HASH,
    sessionId: 's',
    userId: 'u',
    agentId: 'a',
    kind: 'user_message',
    observedAt,
    speaker: 'u',
    text,
    told: null,
    distance: 0.2,
    textRank: 0.1,
  };
}

// Equal channel weights, so the cases read in ranks alone.
const policy = { ...DEFAULT_FUSION_POLICY, weights: { notes: 1, recordVector: 1, recordText: 1 } };

describe('selectFused', () => {
  it('interleaves by fused rank: a record both record channels rank first beats the second note', () => {
    const out = selectFused(
      [note('N1', []), note('N2', [])],
      { vector: [record('R1')], text: [record('R1')] },
      {
        k: 10,
        tokenBudget: undefined,
        policy,
        query: 'q',
      },
    );
    expect(rankingOf(out)).toEqual([
      { type: 'record', id: 'R1' },
      { type: 'note', id: 'N1' },
      { type: 'note', id: 'N2' },
    ]);
  });

  it('drops a record a kept note cites, even one kept before the note, and fills its place', () => {
    const out = selectFused(
      [note('N1', ['R1'])],
      { vector: [record('R1'), record('R2')], text: [record('R1'), record('R3')] },
      { k: 2, tokenBudget: undefined, policy, query: 'q' },
    );
    expect(rankingOf(out)).toEqual([
      { type: 'note', id: 'N1' },
      { type: 'record', id: 'R2' },
    ]);
    expect(out.citedByNotes).toBe(1);
  });

  it('puts a note where the best-ranked record it cites stood, so its evidence keeps its rank', () => {
    const out = selectFused(
      [note('N1', ['R1'])],
      { vector: [record('R1'), record('R2')], text: [record('R1'), record('R2')] },
      { k: 10, tokenBudget: undefined, policy, query: 'q' },
    );
    expect(rankingOf(out)).toEqual([
      { type: 'note', id: 'N1' },
      { type: 'record', id: 'R2' },
    ]);
  });

  it('skips what does not fit the token budget and keeps a smaller, lower-ranked item', () => {
    const long = record('R1', 'x'.repeat(400));
    const out = selectFused(
      [note('N1', [])],
      { vector: [long, record('R2')], text: [long] },
      {
        k: 10,
        tokenBudget: 20,
        policy,
        query: 'q',
      },
    );
    expect(rankingOf(out).map((i) => i.id)).toEqual(['N1', 'R2']);
    expect(out.overBudget).toBe(1);
    expect(out.tokens).toBeLessThanOrEqual(20);
  });

  it('with updatesFirst, puts a newer record that updates an older one’s value above it', () => {
    const older = record('R0', 'My Zotero library has 45 sources, tagged by theme.');
    const newer = record('R1', 'My Zotero library has 52 sources now, tagged by theme.', '2026-06-20T00:00:00.000Z');
    const query = 'How many sources are in my Zotero library?';
    const ranked = (updatesFirst: boolean) =>
      rankingOf(
        selectFused(
          [],
          { vector: [older, record('R2'), newer], text: [] },
          {
            k: 10,
            tokenBudget: undefined,
            policy: { ...policy, updatesFirst },
            query,
          },
        ),
      ).map((i) => i.id);
    expect(ranked(false)).toEqual(['R0', 'R2', 'R1']);
    expect(ranked(true)).toEqual(['R1', 'R0', 'R2']);
  });

  it('ranks the records both channels found by meaning and by the query words in the record told as a note', () => {
    const hybrid = { ...DEFAULT_FUSION_POLICY, weights: { notes: 1, recordVector: 0, recordText: 0, recordHybrid: 1 } };
    const near = { ...record('R1', 'I love my garden.'), distance: 0.1 };
    const named = { ...record('R2', 'I went to a pottery class yesterday.'), distance: 0.15, speaker: 'Melanie' };
    const out = selectFused(
      [],
      { vector: [near, named], text: [named] },
      {
        k: 10,
        tokenBudget: undefined,
        policy: hybrid,
        query: 'When did Melanie go to the pottery class?',
        similarityFloor: 0,
      },
    );
    expect(rankingOf(out).map((i) => i.id)).toEqual(['R2', 'R1']);
    const first = out.items[0];
    expect(first?.type === 'record' && first.record.why).toMatch(/rank 1 by meaning and words/);
  });

  it('matches the query words in the told text the index stored, and tells a row indexed before it on the fly', () => {
    const hybrid = { ...DEFAULT_FUSION_POLICY, weights: { notes: 1, recordVector: 0, recordText: 0, recordHybrid: 1 } };
    const query = 'When did Caroline go to the support group?';
    // Both say the same in the first person; only the told text names who went.
    const said = 'I went to a support group yesterday.';
    const stored = { ...record('R2', said), told: 'Caroline: Caroline went to a support group on 7 May 2023.' };
    const other = { ...record('R1', said), speaker: 'Melanie' };
    const ranked = (rows: RecordRow[]) =>
      rankingOf(
        selectFused([], { vector: rows, text: [] }, { k: 10, tokenBudget: undefined, policy: hybrid, query }),
      ).map((i) => i.id);
    expect(ranked([other, stored])).toEqual(['R2', 'R1']);
    expect(toldOf(stored)).toBe(stored.told);
    expect(toldOf(other)).toBe('Melanie: Melanie went to a support group on 31 May 2026.');
  });

  it('ranks long records by their meaning: past the text span, shared words weigh less against the cosine', () => {
    const query = 'How did Ana speed up the dashboard API?';
    const filler = ' The rest of the message is about sprint planning, commits, release tags and a code review.'.repeat(
      10,
    );
    // The first record holds the query's words in passing; the second is about the question and says it otherwise.
    const wordy = {
      ...record('R1', `Ana asked about the dashboard API and how to speed up the build.${filler}`),
      distance: 0.3,
    };
    const meant = {
      ...record('R2', `Ana cut the response time of the dashboard endpoint with caching.${filler}`),
      distance: 0.1,
    };
    const ranked = (recordTextSpan: number | undefined) => {
      const hybrid = {
        ...DEFAULT_FUSION_POLICY,
        weights: { notes: 1, recordVector: 0, recordText: 0, recordHybrid: 1 },
        recordTextSpan,
      };
      return rankingOf(
        selectFused(
          [],
          { vector: [wordy, meant], text: [wordy] },
          { k: 10, tokenBudget: undefined, policy: hybrid, query },
        ),
      ).map((i) => i.id);
    };
    expect(ranked(undefined)).toEqual(['R1', 'R2']);
    expect(ranked(200)).toEqual(['R2', 'R1']);
    // Short records keep the word match: the span changes nothing below it.
    const short = [
      { ...wordy, text: 'Ana asked about the dashboard API speed up.' },
      { ...meant, text: 'Ana cut the endpoint time.' },
    ];
    const shortRanked = (recordTextSpan: number | undefined) =>
      rankingOf(
        selectFused(
          [],
          { vector: short, text: [] },
          {
            k: 10,
            tokenBudget: undefined,
            policy: {
              ...DEFAULT_FUSION_POLICY,
              weights: { notes: 1, recordVector: 0, recordText: 0, recordHybrid: 1 },
              recordTextSpan,
            },
            query,
          },
        ),
      ).map((i) => i.id);
    expect(shortRanked(200)).toEqual(shortRanked(undefined));
  });

  it('gives each record its relevance and, under minRelevance, leaves out the records that match less', () => {
    const hybrid = { ...DEFAULT_FUSION_POLICY, weights: { notes: 1, recordVector: 0, recordText: 0, recordHybrid: 1 } };
    const close = { ...record('R1', 'Melanie went to a pottery class.'), distance: 0.1, speaker: 'Melanie' };
    const far = { ...record('R2', 'The weather was nice.'), distance: 0.9 };
    const query = 'When did Melanie go to the pottery class?';
    const select = (minRelevance?: number) =>
      selectFused(
        [],
        { vector: [close, far], text: [close] },
        { k: 10, tokenBudget: undefined, policy: hybrid, query, minRelevance },
      );
    const all = select();
    const relevance = all.items.map((i) => (i.type === 'record' ? i.record.relevance : -1));
    expect(relevance[0]).toBeGreaterThan(0.5);
    expect(relevance[1]).toBeLessThan(0.2);
    const kept = select(0.5);
    expect(rankingOf(kept).map((i) => i.id)).toEqual(['R1']);
    expect(kept.belowMinRelevance).toBe(1);
    expect(select(0.99).items).toEqual([]);
  });

  it('ranks a record said at the time the query names as if more relevant, and says why; its relevance stays', () => {
    const query = 'What did Maria plan to do on the evening of 7 July, 2023?';
    const planned = { ...record('R1', 'Maria plans a movie evening.', '2023-07-20T18:00:00.000Z'), distance: 0.2 };
    const thatDay = {
      ...record('R2', "Well, I'm off to have dinner with some friends from the gym!", '2023-07-07T19:00:00.000Z'),
      distance: 0.25,
    };
    const namedTimes = [{ from: new Date('2023-07-07T00:00:00Z'), to: new Date('2023-07-09T00:00:00Z') }];
    const select = (policy = DEFAULT_FUSION_POLICY) =>
      selectFused(
        [],
        { vector: [planned], text: [planned], atTimes: [thatDay] },
        { k: 10, tokenBudget: undefined, policy, query, namedTimes },
      );
    const fused = select();
    expect(rankingOf(fused).map((i) => i.id)).toEqual(['R2', 'R1']);
    const [first, second] = fused.items.map((i) => (i.type === 'record' ? i.record : undefined));
    expect(first?.why).toMatch(/said at the time the query names/);
    expect(second?.why).not.toMatch(/said at the time/);
    // Without the policy's named time, the record of another day that shares the query's words comes first.
    const without = select({ ...DEFAULT_FUSION_POLICY, namedTime: undefined });
    expect(rankingOf(without).map((i) => i.id)).toEqual(['R1', 'R2']);
    const relevance = (selection: typeof fused) =>
      new Map(
        selection.items.flatMap((i) => (i.type === 'record' ? [[i.record.row.recordId, i.record.relevance]] : [])),
      );
    expect(relevance(fused).get('R2')).toBeGreaterThan(0);
    expect(relevance(fused).get('R2')).toBe(relevance(without).get('R2'));
  });
});
