import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBatch } from '../../src/archive/index.ts';
import { catchUpNoteVectors } from '../../src/consolidation/catch-up-vectors.ts';
import { selectRunsMissingVectors, withTenant, type Db } from '../../src/db/index.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { recall } from '../../src/recall/recall.ts';
import { openRecallEmbedder } from '../../src/runtime.ts';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { pipelineConfig, startPipeline, type Pipeline } from '../helpers/pipeline.ts';

// A run whose indexing step failed leaves committed notes without vectors. `nocturne index
// vectors` must find those runs and give their claims vectors on the real stack.

const { config, schema } = pipelineConfig('vectors_catch_up');
const tenantId = 'acme';
let pipeline: Pipeline;
let db: Db;
let client: Client;
let embedder: Embedder;
let run: ConsolidateResult;

beforeAll(async () => {
  pipeline = await startPipeline(config, schema);
  ({ db, client } = pipeline);
  embedder = await openRecallEmbedder(config);
  await writeBatch(pipeline.archive, {
    tenantId,
    producer: 'catch-up',
    records: demoRecords().filter((r) => r.tenantId === tenantId),
  });
  run = (await client.workflow.execute('consolidateTenantWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: `consolidate/${tenantId}/catch-up-${randomBytes(3).toString('hex')}`,
    args: [{ tenantId, trigger: 'manual', seed: 3 }],
  })) as ConsolidateResult;
});

afterAll(async () => {
  await pipeline?.close();
});

const missing = () => withTenant(db, tenantId, (tx) => selectRunsMissingVectors(tx, { model: embedder.name }));
const catchUp = () =>
  catchUpNoteVectors({ db, client, taskQueue: config.temporal.taskQueue, model: embedder.name }, tenantId);
const recallBilling = () =>
  recall(db, embedder, { tenantId, query: 'billing API amounts in dollars or cents', k: 5 }, {});

describe('catching up note vectors', () => {
  it('finds nothing to do after a run whose step embedded everything', async () => {
    expect(run.status).toBe('completed');
    expect(run.vectors?.complete).toBe(true);
    expect(await missing()).toEqual([]);
    expect(await catchUp()).toEqual([]);
  });

  it('gives the claims of a run whose step failed their vectors again, and recall stops marking them', async () => {
    // What a failed indexing step leaves behind: committed claims without a vector.
    const cleared = await withTenant(db, tenantId, async (tx) => {
      const r = await tx.query('UPDATE note_versions SET embedding = NULL WHERE embedding IS NOT NULL');
      return r.rowCount ?? 0;
    });
    expect(cleared).toBeGreaterThan(0);
    const before = await recallBilling();
    expect(before.notes.length).toBeGreaterThan(0);
    expect(before.notes.every((n) => n.vectorPending === true)).toBe(true);
    expect((await missing()).reduce((s, r) => s + r.pending, 0)).toBe(cleared);

    const steps = await catchUp();
    expect(steps.map((s) => s.state)).toEqual(steps.map(() => 'started'));
    const embedded = (await Promise.all(steps.map((s) => s.handle.result()))).reduce((s, r) => s + r.embedded, 0);
    expect(embedded).toBe(cleared);

    expect(await missing()).toEqual([]);
    // A vector another model produced is not this model's: it is missing too, and is replaced.
    const restamped = await withTenant(db, tenantId, async (tx) => {
      const r = await tx.query(
        `UPDATE note_versions SET embedding_model = 'lexical:older' WHERE embedding IS NOT NULL`,
      );
      return r.rowCount ?? 0;
    });
    expect((await missing()).reduce((s, r) => s + r.pending, 0)).toBe(restamped);
    await Promise.all((await catchUp()).map((s) => s.handle.result()));
    expect(await missing()).toEqual([]);
    const after = await recallBilling();
    expect(after.notes.map((n) => n.noteId)).toEqual(expect.arrayContaining(before.notes.map((n) => n.noteId)));
    expect(after.notes.some((n) => n.vectorPending)).toBe(false);
    expect(after.notes.some((n) => (n.parts.vector ?? 0) > 0)).toBe(true);
  });
});
