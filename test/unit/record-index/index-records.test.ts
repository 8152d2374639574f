import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { withTenant } from '../../../src/db/index.ts';
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

  it('row-level security: another tenant sees none of the rows', async () => {
    const tenantId = freshTenantId('mine');
    await archiveRecords(ports, preferenceSession(tenantId, 'u-fay'));
    await indexRecords(ports, { tenantId });
    expect(await indexedRows(freshTenantId('other'))).toEqual([]);
  });
});
