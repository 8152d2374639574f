import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { toSql } from 'pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toldText } from '../../policies/record-recall.ts';
import { parseConfig } from '../../src/config.ts';
import { type Db, MIGRATIONS_DIR, openDb, runMigrations } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import { textHash } from '../../src/embeddings/cached.ts';
import { recall } from '../../src/recall/index.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { dropSchema, openOwnerDb, stackDatabase } from '../helpers/pipeline.ts';

// A record index written before migration 0022 has no stored told text: once the store is
// migrated, recall must tell those rows itself and rank them exactly as a rebuild (which stores
// the told text) would. Real PostgreSQL + pgvector and the real embedding server.
const config = parseConfig(stackEnv());
const dimension = config.embedding.dimension;
const schema = `nocturne_told_${randomBytes(4).toString('hex')}`;
const tenant = `told-${randomBytes(3).toString('hex')}`;
const embedder = createModelEmbedder(config.embedding);
/** Every migration before 0022 (the numbers have gaps): the record index without its told text. */
const BEFORE_TOLD = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_.*\.sql$/.test(f) && f < '0022').length;
let owner: Db;
let db: Db;

// Two people said the same words: their vectors are made equal here, so only the words of the
// told text ("Caroline: Caroline went to…") can tell whose turn the question asks about.
const SAME = 'I went to a support group yesterday.';
const RECORDS = [
  { id: 'r-a-melanie', speaker: 'Melanie', text: SAME, at: '2023-05-08T13:56:00Z', embed: SAME },
  { id: 'r-b-caroline', speaker: 'Caroline', text: SAME, at: '2023-05-08T13:57:00Z', embed: SAME },
  { id: 'r-lake', speaker: 'Melanie', text: 'I painted that lake sunrise last year.', at: '2023-05-08T14:01:00Z' },
  {
    id: 'r-race',
    speaker: 'Melanie',
    text: 'I ran a charity race for mental health last Saturday.',
    at: '2023-05-25T13:14:00Z',
  },
].map((r) => ({
  ...r,
  told: toldText({ kind: 'user_message', speaker: r.speaker, text: r.text, observedAt: r.at }),
}));

/** The rows as the indexer before 0022 wrote them: the told string embedded, not stored. */
async function writeOldRows(): Promise<void> {
  const vectors = await embedder.embed(
    RECORDS.map((r) => r.embed ?? r.told),
    { kind: 'passage' },
  );
  await unscoped(owner).transaction(async (tx) => {
    await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenant]);
    for (const [i, r] of RECORDS.entries()) {
      await tx.query(
        `INSERT INTO record_index (tenant_id, record_id, object_key, line, content_hash, session_id, user_id, agent_id,
           kind, observed_at, speaker, text, text_hash, embedding_model, embedding)
         VALUES ($1, $2, 'raw/old.jsonl.gz', $3, $4, 's-1', $5, 'agent', 'user_message', $6, $5, $7, $8, $9, $10::vector)`,
        [
          tenant,
          r.id,
          i + 1,
          'c'.repeat(64),
          r.speaker,
          r.at,
          r.text,
          textHash(r.told),
          embedder.name,
          toSql(vectors[i]),
        ],
      );
    }
  });
}

async function ask(query: string) {
  const result = await recall(db, embedder, { tenantId: tenant, query, k: 3, include: ['records'] }, {});
  return result.records.map((r) => ({ recordId: r.recordId, why: r.why }));
}

beforeAll(async () => {
  owner = openOwnerDb(schema);
  const applied = await runMigrations(owner, { dimension, schema, count: BEFORE_TOLD });
  expect(applied.at(-1)).toMatch(/^0021_/);
  await writeOldRows();
  expect(await runMigrations(owner, { dimension, schema })).toContain('0022_record-index-told');
  db = await openDb(stackDatabase(), { dimension, schema });
}, 120_000);

afterAll(async () => {
  await db?.close();
  await owner?.close();
  await dropSchema(schema);
});

describe('upgrading a record index written before its told text was stored', () => {
  it('recalls the old rows as a rebuild that stores the told text does', async () => {
    const query = 'When did Caroline go to the support group?';
    const before = await ask(query);
    expect(before.map((r) => r.recordId).slice(0, 2)).toEqual(['r-b-caroline', 'r-a-melanie']);

    const { rows } = await unscoped(owner).transaction(async (tx) => {
      await tx.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenant]);
      for (const r of RECORDS) await tx.query(`UPDATE record_index SET told = $1 WHERE record_id = $2`, [r.told, r.id]);
      return tx.query(`SELECT count(*)::int AS n FROM record_index WHERE told IS NOT NULL`);
    });
    expect(rows).toEqual([{ n: RECORDS.length }]);
    expect(await ask(query)).toEqual(before);
  });
});
