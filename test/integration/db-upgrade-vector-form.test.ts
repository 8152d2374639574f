import { readdirSync } from 'node:fs';
import { toSql } from 'pgvector';
import { monotonicFactory } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedText, RECORD_VECTOR_FORM, toldText } from '../../policies/record-recall.ts';
import {
  ObjectReader,
  openArchive,
  writeBatch,
  type ArchivedRecord,
  type ArchiveStore,
} from '../../src/archive/index.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { type Db, MIGRATIONS_DIR, openDb, runMigrations, withTenant } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { textHash } from '../../src/embeddings/cached.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import { indexRecords } from '../../src/record-index/index.ts';
import { dropSchema, openOwnerDb, pipelineConfig, stackDatabase } from '../helpers/pipeline.ts';

// A record index written before the turn before went into record vectors (migration 0035) is
// brought to the current form by the next `nocturne index records`, without a rebuild: migration
// 0036 marks the old rows and objects, and indexing replaces them. Real PostgreSQL + pgvector,
// SeaweedFS and the embedding server.
const { config, schema } = pipelineConfig('vector_form');
const dimension = config.embedding.dimension;
const tenantId = 'vector-form-acme';
const embedder = createModelEmbedder(config.embedding);
/** Every migration before 0036: the record index without its vector form. */
const BEFORE_FORM = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_.*\.sql$/.test(f) && f < '0036').length;
const nextId = monotonicFactory();
let owner: Db;
let db: Db;
let archive: ArchiveStore;
let archived: ArchivedRecord[];

const TURNS = [
  { userId: 'u-ana', text: 'I booked the pottery workshop for Saturday. Did you like the one last spring?' },
  { userId: 'u-ben', text: 'Yes, I loved it.' },
];

function records(): RawRecordInput[] {
  return TURNS.map((t, i) => {
    const at = new Date(Date.parse('2026-11-20T10:00:00Z') + i * 60_000).toISOString();
    return {
      id: nextId(Date.parse(at)),
      tenantId,
      userId: t.userId,
      agentId: 'chat',
      sessionId: 's-pottery',
      kind: 'user_message',
      source: 'user',
      role: 'user',
      text: t.text,
      observedAt: at,
      recordedAt: at,
    } as RawRecordInput;
  });
}

/** The rows and the object as the indexer before 0035 wrote them: each vector its told text alone. */
async function writeOldIndex(): Promise<void> {
  const told = archived.map((a) => toldOf(a));
  const vectors = await embedder.embed(told, { kind: 'passage' });
  await unscoped(owner).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
    for (const [i, a] of archived.entries()) {
      const r = a.record;
      await tx.query(
        `INSERT INTO record_index (tenant_id, record_id, object_key, line, content_hash, session_id, user_id, agent_id,
           kind, observed_at, speaker, text, told, text_hash, embedding_model, embedding)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'chat', 'user_message', $8, $7, $9, $10, $11, $12, $13::vector)`,
        [
          tenantId,
          r.id,
          a.objectKey,
          a.line,
          a.contentHash,
          r.sessionId,
          r.userId,
          r.observedAt,
          r.text,
          told[i],
          textHash(told[i] as string),
          embedder.name,
          toSql(vectors[i]),
        ],
      );
    }
    await tx.query(`INSERT INTO record_index_objects (tenant_id, object_key, records) VALUES ($1, $2, $3)`, [
      tenantId,
      archived[0]?.objectKey,
      archived.length,
    ]);
  });
}

const toldOf = (a: ArchivedRecord) =>
  toldText({
    kind: 'user_message',
    speaker: a.record.userId as string,
    text: a.record.text as string,
    observedAt: a.record.observedAt,
  });

const rowsOf = () =>
  withTenant(db, tenantId, async (tx) => {
    const { rows } = await tx.query(
      `SELECT record_id, vector_form, context_record_id, text_hash, embedding::text AS embedding
         FROM record_index ORDER BY observed_at`,
    );
    return rows as Array<{
      record_id: string;
      vector_form: number;
      context_record_id: string | null;
      text_hash: string;
      embedding: string;
    }>;
  });

beforeAll(async () => {
  archive = openArchive(config.archive);
  const written = await writeBatch(archive, { tenantId, producer: 'chat', records: records(), now: new Date() });
  archived = [];
  for (const o of written.objects) for await (const a of new ObjectReader(archive, o.objectKey)) archived.push(a);
  owner = openOwnerDb(schema);
  const applied = await runMigrations(owner, { dimension, schema, count: BEFORE_FORM });
  expect(applied.at(-1)).toMatch(/^0035_/);
  await writeOldIndex();
  expect(await runMigrations(owner, { dimension, schema })).toContain('0036_record-index-vector-form');
  db = await openDb(stackDatabase(), { dimension, schema });
}, 120_000);

afterAll(async () => {
  await db?.close();
  await owner?.close();
  await archive?.close();
  await dropSchema(schema);
});

describe('upgrading a record index written before the turn before was embedded', () => {
  it('marks the old rows of the first form, and the next indexing replaces each with the current form', async () => {
    expect((await rowsOf()).map((r) => r.vector_form)).toEqual([1, 1]);

    const result = await indexRecords({ db, archive, embedder }, { tenantId });
    expect(result).toMatchObject({ objects: 1, records: 2, replaced: 2, after: null });

    const [ana, ben] = archived as [ArchivedRecord, ArchivedRecord];
    const rows = await rowsOf();
    expect(rows.map((r) => [r.record_id, r.vector_form, r.context_record_id])).toEqual([
      [ana.record.id, RECORD_VECTOR_FORM, null],
      [ben.record.id, RECORD_VECTOR_FORM, ana.record.id],
    ]);
    // Ben's vector now takes in what Ana asked: the model's vector of that string.
    const benText = embeddedText(
      { kind: 'user_message', speaker: 'u-ben', text: ben.record.text as string, observedAt: ben.record.observedAt },
      { recordId: ana.record.id, speaker: 'u-ana', text: ana.record.text as string },
    );
    expect(benText).toContain('pottery workshop');
    expect(rows[1]?.text_hash).toBe(textHash(benText));
    const [expected] = await embedder.embed([benText], { kind: 'passage' });
    const stored = JSON.parse(rows[1]?.embedding as string) as number[];
    const cosine = stored.reduce((s, v, i) => s + v * (expected?.[i] as number), 0);
    expect(cosine).toBeGreaterThan(0.999);

    expect(await indexRecords({ db, archive, embedder }, { tenantId })).toMatchObject({ objects: 0, records: 0 });
  });
});
