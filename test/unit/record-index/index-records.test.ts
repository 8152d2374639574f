import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { RECORD_VECTOR_FORM, withTurnBefore } from '../../../policies/record-recall.ts';
import { insertIndexedObject, insertIndexedRecords, withTenant } from '../../../src/db/index.ts';
import { textHash } from '../../../src/embeddings/cached.ts';
import type { Embedder } from '../../../src/embeddings/embedder.ts';
import { indexRecords, rebuildRecordIndex } from '../../../src/record-index/index.ts';
import { archiveRecords, freshTenantId, portsForThisFile, preferenceSession } from '../../helpers/use-cases.ts';

// Indexing a tenant's raw records on PGlite and a file archive: what recall's record channels read.

const ports = portsForThisFile();

/** The embedder of the ports, counting the texts that reach it. */
function counted(): { embedder: Embedder; texts: string[] } {
  const texts: string[] = [];
  const inner = ports.embedder;
  return {
    texts,
    embedder: {
      name: inner.name,
      dimension: inner.dimension,
      embed: (batch, options) => {
        texts.push(...batch);
        return inner.embed(batch, options);
      },
    },
  };
}

async function indexedRows(tenantId: string) {
  return withTenant(ports.db, tenantId, async (tx) => {
    const { rows } = await tx.query(
      `SELECT record_id, kind, speaker, text, embedding IS NOT NULL AS embedded FROM record_index ORDER BY observed_at`,
    );
    return rows as Array<{ record_id: string; kind: string; speaker: string; text: string; embedded: boolean }>;
  });
}

function withSecret(records: RawRecordInput[]): RawRecordInput[] {
  return records.map((r, i) => (i === 0 ? { ...r, text: 'Mail the table to dana@example.com, please.' } : r));
}

describe('indexRecords', () => {
  it('indexes the records with text (not the outcome), redacted, embedded, and a second call reads nothing', async () => {
    const tenantId = freshTenantId('index');
    await archiveRecords(ports, withSecret(preferenceSession(tenantId, 'u-alice')));
    const { embedder, texts } = counted();
    const first = await indexRecords({ ...ports, embedder }, { tenantId });
    expect(first).toMatchObject({ objects: 1, records: 2, embedded: 2, after: null });
    const rows = await indexedRows(tenantId);
    expect(rows.map((r) => r.kind)).toEqual(['user_message', 'agent_message']);
    expect(rows[0]?.text).toBe('Mail the table to [REDACTED_EMAIL], please.');
    expect(rows[0]?.speaker).toBe('u-alice');
    expect(rows.every((r) => r.embedded)).toBe(true);
    expect(texts.join(' ')).not.toContain('dana@example.com');
    expect(await indexRecords({ ...ports, embedder }, { tenantId })).toMatchObject({ objects: 0, records: 0 });
  });

  it('leaves records outside the window out, and reads the object again for a wider window', async () => {
    const tenantId = freshTenantId('window');
    const records = preferenceSession(tenantId, 'u-bob');
    await archiveRecords(ports, records);
    const to = records[0]?.observedAt as string;
    expect(await indexRecords(ports, { tenantId, window: { to } })).toMatchObject({ objects: 1, records: 1 });
    expect(await indexRecords(ports, { tenantId, window: {} })).toMatchObject({ objects: 1, records: 1 });
    expect(await indexedRows(tenantId)).toHaveLength(2);
  });

  it('stops after maxObjects and continues from the cursor it returned', async () => {
    const tenantId = freshTenantId('cursor');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-carol'));
    await archiveRecords(ports, preferenceSession(tenantId, 'u-dan', 'Use metric units in every report.'));
    const first = await indexRecords(ports, { tenantId, maxObjects: 1 });
    expect(first.objects).toBe(1);
    expect(first.after).not.toBeNull();
    const rest = await indexRecords(ports, { tenantId, maxObjects: 1, after: first.after });
    expect(rest).toMatchObject({ objects: 1, after: null });
    expect(await indexedRows(tenantId)).toHaveLength(4);
  });

  it('rebuild drops the projection and indexes again without embedding any text twice', async () => {
    const tenantId = freshTenantId('rebuild');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-erin'));
    await indexRecords(ports, { tenantId });
    const { embedder, texts } = counted();
    const rebuilt = await rebuildRecordIndex({ ...ports, embedder }, { tenantId });
    expect(rebuilt).toMatchObject({ dropped: 2, objects: 1, records: 2, embedded: 0 });
    expect(texts).toEqual([]);
    expect(await indexedRows(tenantId)).toHaveLength(2);
  });

  it("embeds each record with the turn said before it in its session, from the same object or an earlier append's", async () => {
    const tenantId = freshTenantId('turns');
    const [ask, answer] = preferenceSession(tenantId, 'u-gus') as [RawRecordInput, RawRecordInput];
    await archiveRecords(ports, [ask, answer]);
    const later = (r: RawRecordInput, seconds: number, fields: Partial<RawRecordInput>) => ({
      ...r,
      id: ulid(Date.parse(r.observedAt) + seconds * 1000),
      observedAt: new Date(Date.parse(r.observedAt) + seconds * 1000).toISOString(),
      ...fields,
    });
    const thanks = later(ask, 60, { text: 'Great, that is what I wanted.' });
    const page = later(answer, 70, { text: `Here is the full report. ${'| Jan | 1 | '.repeat(50)}` });
    const after = later(ask, 120, { text: 'Perfect, thanks.' });
    await archiveRecords(ports, [thanks, page, after]);
    const { embedder, texts } = counted();
    await indexRecords({ ...ports, embedder }, { tenantId });
    expect(texts).toEqual([
      'u-gus: Please always show u-gus reports as a table, not prose.',
      'assistant: Understood. | Month | Total |\n(after u-gus: Please always show me reports as a table, not prose.)',
      // The first record of the second object: the turn before it is in the first.
      'u-gus: Great, that is what u-gus wanted.\n(after assistant: Understood. | Month | Total |)',
      expect.stringMatching(
        /^assistant: Here is the full report\. .*\n\(after u-gus: Great, that is what I wanted\.\)$/,
      ),
      // A page is not a turn: it stays out of the vector of what follows it.
      'u-gus: Perfect, thanks.',
    ]);
    const rows = await withTenant(ports.db, tenantId, async (tx) => {
      const { rows } = await tx.query(`SELECT record_id, context_record_id FROM record_index ORDER BY observed_at`);
      return rows as Array<{ record_id: string; context_record_id: string | null }>;
    });
    expect(rows.map((r) => r.context_record_id)).toEqual([null, ask.id, answer.id, thanks.id, null]);
  });

  it('replaces the rows of an object indexed in an older vector form, and counts them; then reads nothing', async () => {
    const tenantId = freshTenantId('form');
    const [ask, answer] = preferenceSession(tenantId, 'u-hal') as [RawRecordInput, RawRecordInput];
    await archiveRecords(ports, [ask, answer]);
    await indexRecords(ports, { tenantId });
    await writeAsFormOne(tenantId);
    const { embedder, texts } = counted();
    const upgraded = await indexRecords({ ...ports, embedder }, { tenantId });
    expect(upgraded).toMatchObject({ objects: 1, records: 2, replaced: 2 });
    // The answer's vector takes in the question again; the question's text was cached by the first call.
    expect(texts).toEqual([]);
    const rows = await withTenant(ports.db, tenantId, async (tx) => {
      const { rows } = await tx.query(
        `SELECT record_id, vector_form, context_record_id, text_hash, told FROM record_index ORDER BY observed_at`,
      );
      return rows as Array<{
        record_id: string;
        vector_form: number;
        context_record_id: string | null;
        text_hash: string;
        told: string;
      }>;
    });
    // The outcome's row of the older form went with the object's old mark: no older row is left.
    expect(rows.map((r) => [r.record_id, r.vector_form, r.context_record_id])).toEqual([
      [ask.id, RECORD_VECTOR_FORM, null],
      [answer.id, RECORD_VECTOR_FORM, ask.id],
    ]);
    const turn = { recordId: ask.id, speaker: 'u-hal', text: ask.text as string };
    expect(rows[1]?.text_hash).toBe(textHash(withTurnBefore(rows[1]?.told as string, turn)));
    expect(await indexRecords(ports, { tenantId })).toMatchObject({ objects: 0, records: 0, replaced: 0 });
  });

  it('row-level security: another tenant sees none of the rows', async () => {
    const tenantId = freshTenantId('mine');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-fay'));
    await indexRecords(ports, { tenantId });
    expect(await indexedRows(freshTenantId('other'))).toEqual([]);
  });
});

/**
 * The tenant's rows and objects as an indexer before the turn before wrote them: form 1, each
 * vector its told text alone, no context record (rows are deleted and inserted: never edited).
 */
async function writeAsFormOne(tenantId: string): Promise<void> {
  await withTenant(ports.db, tenantId, async (tx) => {
    const { rows } = await tx.query(
      `SELECT record_id, object_key, line, content_hash, session_id, user_id, agent_id, task_type, kind,
              observed_at, speaker, text, told FROM record_index`,
    );
    const old = await Promise.all(
      (rows as Array<Record<string, string>>).map(async (r) => ({
        recordId: r.record_id as string,
        objectKey: r.object_key as string,
        line: Number(r.line),
        contentHash: r.content_hash as string,
        sessionId: r.session_id as string,
        userId: r.user_id ?? null,
        agentId: r.agent_id as string,
        taskType: r.task_type ?? null,
        kind: r.kind as string,
        observedAt: new Date(r.observed_at as string).toISOString(),
        speaker: r.speaker as string,
        text: r.text as string,
        told: r.told as string,
        contextRecordId: null,
        textHash: textHash(r.told as string),
        embedding: (await ports.embedder.embed([r.told as string], { kind: 'passage' }))[0] as number[],
      })),
    );
    const { rows: objects } = await tx.query(`SELECT object_key, records FROM record_index_objects`);
    await tx.query(`DELETE FROM record_index`);
    await tx.query(`DELETE FROM record_index_objects`);
    // A row an older indexer kept of a record the index no longer keeps (the session's outcome).
    const outcome = { ...(old[0] as (typeof old)[number]), recordId: 'r-outcome-kept-before', line: 3 };
    await insertIndexedRecords(tx, { tenantId, model: ports.embedder.name, form: 1, records: [...old, outcome] });
    for (const o of objects as Array<{ object_key: string; records: number }>)
      await insertIndexedObject(tx, { tenantId, objectKey: o.object_key, records: o.records, form: 1 });
  });
}
