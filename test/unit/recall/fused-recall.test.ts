import { monotonicFactory } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { recall } from '../../../src/recall/index.ts';
import { z } from 'zod';
import { DEFAULT_FUSION_POLICY, type FusionPolicy } from '../../../policies/fusion.ts';
import { RECORD_BM25 } from '../../../policies/record-recall.ts';
import { withTenant } from '../../../src/db/index.ts';
import { readRecordCandidates, readRecordChannels } from '../../../src/recall/read-candidates.ts';
import { RECORD_TEXT_SQL } from '../../../src/recall/record-queries.ts';
import { indexRecords } from '../../../src/record-index/index.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';
import { gatedEmbedder, loggingDb } from '../../helpers/gated-recall.ts';

// Recall over notes and the raw-record index together, on PGlite and a file archive: a
// consolidation writes the note, indexing projects the records, recall fuses both.

const ports = portsForThisFile();

const nextId = monotonicFactory(() => 0.5);
const NOW = new Date('2026-11-05T12:00:00Z');

/** A user's remark. */
function remark(tenantId: string, text: string, observedAt: string): RawRecordInput {
  return {
    id: nextId(Date.parse(observedAt)),
    tenantId,
    userId: 'u-alice',
    agentId: 'billing-assistant',
    sessionId: `chat-${observedAt}`,
    kind: 'user_message',
    source: 'user',
    text,
    observedAt,
    recordedAt: observedAt,
  };
}

/** A tenant with one preference note (citing the user's message) and one remark only the record index holds. */
async function tenantWithNoteAndRemark(): Promise<string> {
  const tenantId = freshTenantId('fused');
  await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
  await consolidate(ports, tenantId, 'run-1');
  // Archived after the run: no note is written from it yet.
  await archiveRecords(ports, [
    remark(tenantId, 'My March reports went to the auditors in Lisbon as a table.', '2026-11-03T09:00:00.000Z'),
  ]);
  await indexRecords(ports, { tenantId });
  return tenantId;
}

const ask = (tenantId: string, extra: Record<string, unknown> = {}) =>
  recall(ports.db, ports.embedder, { tenantId, query: 'reports as a table', k: 5, ...extra }, { now: () => NOW });

describe('fused recall', () => {
  it('returns the note with its evidence and the records no note cites, in one fused ranking', async () => {
    const tenantId = await tenantWithNoteAndRemark();
    const result = await ask(tenantId);
    expect(result.notes).toHaveLength(1);
    const cited = result.notes[0]?.evidence.map((e) => e.recordId) ?? [];
    expect(result.records.map((r) => r.text)).toContain('My March reports went to the auditors in Lisbon as a table.');
    expect(result.records.some((r) => cited.includes(r.recordId))).toBe(false);
    expect(result.stats.recordsCitedByNotes).toBeGreaterThan(0);
    const remarkRecord = result.records.find((r) => r.text.includes('Lisbon'));
    expect(remarkRecord).toMatchObject({ speaker: 'u-alice', userId: 'u-alice', kind: 'user_message' });
    expect(remarkRecord?.evidence.recordId).toBe(remarkRecord?.recordId);
    expect(result.ranking).toHaveLength(result.notes.length + result.records.length);
    expect(result.ranking).toContainEqual({ type: 'note', id: result.notes[0]?.noteId });
    expect(result.ranking).toContainEqual({ type: 'record', id: remarkRecord?.recordId });
  });

  it('leaves records out when asked for notes only', async () => {
    const tenantId = await tenantWithNoteAndRemark();
    const result = await ask(tenantId, { include: ['notes'] });
    expect(result.notes).toHaveLength(1);
    expect(result.records).toEqual([]);
    expect(result.ranking).toEqual([{ type: 'note', id: result.notes[0]?.noteId }]);
  });

  it('asOf leaves out records observed after it', async () => {
    const tenantId = await tenantWithNoteAndRemark();
    const before = await ask(tenantId, { include: ['records'], asOf: '2026-11-03T08:00:00.000Z' });
    expect(before.records.map((r) => r.text)).not.toContain(
      'My March reports went to the auditors in Lisbon as a table.',
    );
    const after = await ask(tenantId, { include: ['records'], asOf: '2026-11-03T10:00:00.000Z' });
    expect(after.records.map((r) => r.text)).toContain('My March reports went to the auditors in Lisbon as a table.');
  });

  it('keeps notes and records within k and the token budget', async () => {
    const tenantId = await tenantWithNoteAndRemark();
    expect((await ask(tenantId, { k: 1 })).ranking).toHaveLength(1);
    const budgeted = await ask(tenantId, { tokenBudget: 16 });
    expect(budgeted.tokens).toBeLessThanOrEqual(16);
    expect(budgeted.stats.overBudget).toBeGreaterThan(0);
  });

  it('brings the reply to a record that ends by asking right after it, when another person gave it', async () => {
    const tenantId = freshTenantId('replies');
    const said = (userId: string, text: string, minute: number, sessionId = 'chat-wedding') => ({
      ...remark(tenantId, text, `2026-11-02T09:0${minute}:00.000Z`),
      userId,
      sessionId,
    });
    const agentSaid = (text: string, minute: number): RawRecordInput => ({
      ...said('u-bob', text, minute),
      kind: 'agent_message',
      source: 'agent',
      role: 'assistant',
    });
    await archiveRecords(ports, [
      said('u-bob', 'Wow, what a lovely photo! How long have you been married?', 0),
      said('u-alice', '5 years already! Time flies.', 1),
      said('u-bob', 'How long is the married couples dance class?', 2),
      said('u-bob', 'Sorry, wrong chat.', 3),
      said('u-bob', 'We got married in June. How long should a wedding speech be?', 4),
      agentSaid('About three minutes.', 5),
      said('u-alice', 'My brother got married last year.', 6, 'chat-family'),
    ]);
    await indexRecords(ports, { tenantId });
    const asked = async (fusion: FusionPolicy, userId?: string) =>
      (
        await recall(
          ports.db,
          ports.embedder,
          { tenantId, query: 'how long married', k: 5 },
          { now: () => NOW, fusion, ...(userId ? { visibleToUser: userId } : {}) },
        )
      ).records;
    const replied = await asked(DEFAULT_FUSION_POLICY);
    const texts = replied.map((r) => r.text);
    const question = texts.indexOf('Wow, what a lovely photo! How long have you been married?');
    expect(question).toBeGreaterThanOrEqual(0);
    expect(texts[question + 1]).toBe('5 years already! Time flies.');
    expect(replied[question + 1]?.why).toMatch(/^raw record: the reply to \S+, which asked and matched/);
    expect(replied[question + 1]?.relevance).toBe(replied[question]?.relevance);
    // The next record after the dance-class question is its own speaker's, and an agent's answer
    // is its own output: neither is brought (each may still be found on its own).
    expect(texts).toContain('How long is the married couples dance class?');
    expect(texts).toContain('We got married in June. How long should a wedding speech be?');
    const brought = replied.filter((r) => /the reply to/.test(r.why)).map((r) => r.text);
    expect(brought).toEqual(['5 years already! Time flies.']);
    const unreplied = await asked({ ...DEFAULT_FUSION_POLICY, replyAfterQuestion: false });
    expect(unreplied.map((r) => r.text)).not.toContain('5 years already! Time flies.');
    // A user-bound token reads only its user's records, replies included.
    expect((await asked(DEFAULT_FUSION_POLICY, 'u-bob')).map((r) => r.text)).not.toContain(
      '5 years already! Time flies.',
    );
  });

  it('never returns another tenant’s records', async () => {
    await tenantWithNoteAndRemark();
    const other = freshTenantId('empty');
    const result = await ask(other);
    expect(result.records).toEqual([]);
    expect(result.ranking).toEqual([]);
  });

  it('ranks records by full text with rare words weighing more than common ones (BM25)', async () => {
    const tenantId = freshTenantId('bm25');
    const chatter = [
      'Caroline loved the class, Caroline says the class was fun and Caroline will take the class again.',
      'Caroline told Caroline that the class with Caroline was the best class.',
      'The class was full, Caroline and the class stayed late.',
      'Caroline asked whether the class starts early, the class with Caroline.',
      'After class Caroline and the class went out.',
    ];
    await archiveRecords(ports, [
      ...chatter.map((text, i) => remark(tenantId, text, `2026-11-02T0${i}:00:00.000Z`)),
      remark(tenantId, 'I signed up for a pottery course.', '2026-11-02T05:00:00.000Z'),
    ]);
    await indexRecords(ports, { tenantId });
    const queryVector = (await ports.embedder.embed(['x']))[0] as number[];
    const ask = async (userId?: string) =>
      readRecordCandidates(ports.db, {
        tenantId,
        at: NOW.toISOString(),
        scopes: undefined,
        queryVector,
        queryText: 'caroline pottery class',
        model: ports.embedder.name,
        limit: 10,
        ...(userId === undefined ? {} : { userId }),
      });
    const found = await ask();
    // ts_rank counted "caroline" and "class" and put the chatter first; "pottery" is in one record only.
    expect(found.text[0]?.text).toBe('I signed up for a pottery course.');
    expect(found.text).toHaveLength(6);
    // A user-bound token's query takes the same ranking over that user's records only.
    expect((await ask('u-alice')).text.map((r) => r.text)).toEqual(found.text.map((r) => r.text));
    expect((await ask('u-bob')).text).toEqual([]);
    // Word rarity is counted among the matches when they all fit the statement's pool, else over
    // the tenant's records: a pool of exactly the 6 matches takes the second way, one of 7 the
    // first; the same counts, so the same scores.
    const withPool = async (pool: number) => {
      const params = [tenantId, NOW.toISOString(), null, null, 'caroline pottery class', 10, ports.embedder.name];
      const { rows } = await withTenant(ports.db, tenantId, (tx) =>
        tx.query(RECORD_TEXT_SQL, [...params, RECORD_BM25.k1, RECORD_BM25.b, pool]),
      );
      return rows.map((r) => z.object({ record_id: z.string(), text_rank: z.number() }).parse(r));
    };
    const whole = await withPool(7);
    expect(whole).toHaveLength(6);
    expect(await withPool(6)).toEqual(whole);
  });

  it('reads the records said at the times a question names, those sharing its words first, and ranks them first', async () => {
    const tenantId = freshTenantId('named-time');
    await archiveRecords(ports, [
      remark(tenantId, 'Maria plans a movie evening with the kids.', '2023-07-20T18:00:00.000Z'),
      remark(tenantId, 'The shelter needs blankets.', '2023-07-07T09:00:00.000Z'),
      remark(tenantId, "Well, I'm off to have dinner with some friends from the gym!", '2023-07-07T19:00:00.000Z'),
      remark(tenantId, 'The flood reached our old street.', '2023-07-08T08:00:00.000Z'),
      remark(tenantId, 'Our evening plans changed.', '2023-07-09T08:00:00.000Z'),
      { ...remark(tenantId, 'The evening was calm.', '2023-07-07T20:00:00.000Z'), userId: 'u-bob' },
    ]);
    await indexRecords(ports, { tenantId });
    const question = 'What did Maria plan to do on the evening of 7 July, 2023?';
    const windows = [{ from: new Date('2023-07-07T00:00:00Z'), to: new Date('2023-07-09T00:00:00Z') }];
    const read = async (depth: number, userId?: string) =>
      readRecordChannels(
        ports.db,
        {
          tenantId,
          at: NOW.toISOString(),
          scopes: undefined,
          queryVector: null,
          queryText: 'maria plan evening 7 july 2023',
          model: ports.embedder.name,
          limit: 10,
          ...(userId === undefined ? {} : { userId }),
        },
        ports.embedder.embed([question]).then(([v]) => v as number[]),
        { atTimes: { windows, depth } },
      );
    const said = (rows: ReadonlyArray<{ text: string }> = []) => rows.map((r) => r.text);
    // The day and the day after, not the 9th nor the 20th; the one sharing a word first, then in the order said.
    expect(said((await read(10)).atTimes)).toEqual([
      'The evening was calm.',
      'The shelter needs blankets.',
      "Well, I'm off to have dinner with some friends from the gym!",
      'The flood reached our old street.',
    ]);
    expect(said((await read(2)).atTimes)).toEqual(['The evening was calm.', 'The shelter needs blankets.']);
    expect((await read(10)).atTimes?.every((r) => r.distance !== null)).toBe(true);
    // A user-bound token reads only its user's records of that day.
    expect(said((await read(10, 'u-bob')).atTimes)).toEqual(['The evening was calm.']);
    // Recall says which records were said then; one of them comes first.
    const asked = await recall(ports.db, ports.embedder, { tenantId, query: question, k: 6 }, { now: () => NOW });
    const then = (r: { observedAt: string }) => r.observedAt >= '2023-07-07' && r.observedAt < '2023-07-09';
    expect(asked.records).toHaveLength(6);
    expect(asked.stats.recordsAtNamedTimes).toBe(4);
    expect(then(asked.records[0] as { observedAt: string })).toBe(true);
    for (const r of asked.records) expect(/said at the time the query names/.test(r.why)).toBe(then(r));
  });

  it('reads full text while the question is embedded, and returns what it returned with the question embedded first', async () => {
    const tenantId = await tenantWithNoteAndRemark();
    const before = await ask(tenantId);
    const statements: string[] = [];
    let vectorsSent = 0;
    const gate = gatedEmbedder(ports.embedder);
    const asked = recall(
      loggingDb(ports.db, statements, () => (vectorsSent += 1)),
      gate.embedder,
      { tenantId, query: 'reports as a table', k: 5 },
      { now: () => NOW },
    );
    // The question's vector has not come back: the full-text channels run all the same.
    await expect.poll(() => statements.filter((s) => s.includes('plainto_tsquery')).length).toBe(2);
    expect(vectorsSent).toBe(0);
    gate.release();
    const after = await asked;
    expect(after).toEqual(before);
    // The note and the remark carry their cosine to the question, though full text found them first.
    expect(after.records[0]?.why).toMatch(/cosine|meaning/);
  });

  it("fails with the model's error when the question cannot be embedded, after the full-text reads began", async () => {
    const tenantId = await tenantWithNoteAndRemark();
    const statements: string[] = [];
    const gate = gatedEmbedder(ports.embedder);
    const asked = recall(loggingDb(ports.db, statements), gate.embedder, { tenantId, query: 'reports as a table' });
    await expect.poll(() => statements.some((s) => s.includes('plainto_tsquery'))).toBe(true);
    gate.fail(new Error('embedding server unavailable'));
    await expect(asked).rejects.toThrow('embedding server unavailable');
  });
});
