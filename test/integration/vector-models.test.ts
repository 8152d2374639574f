import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { rollbackNoteBatchRunId } from '../../src/contracts/workflow-ids.ts';
import { embedRunClaims } from '../../src/consolidation/embed-run.ts';
import { applyNoteBatch, type Db, openDb, withTenant } from '../../src/db/index.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { beginReindex, reembedPage, switchEmbeddings } from '../../src/reindex/rebuild.ts';
import { rollbackNote } from '../../src/rollback/note.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { createOp, freshNoteId, freshTenant } from '../helpers/notes.ts';
import { dropSchema } from '../helpers/pipeline.ts';

// Versions that keep their claim copy the previous version's vector. Across a change of
// embedding model (the stack's e5 server replacing lexical vectors of an older deployment, same
// dimension), a copy must keep the model that produced it and be re-embedded with the new one:
// on real PostgreSQL + pgvector and the real embedding server.

const config = parseConfig(stackEnv());
const schema = `nocturne_vecmodel_${randomBytes(4).toString('hex')}`;
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const e5: Embedder = createModelEmbedder(config.embedding);
const lexical: Embedder = createHashingEmbedder(config.embedding.dimension);
let db: Db;

beforeAll(async () => {
  db = await openDb(config.database, { dimension: config.embedding.dimension, schema });
});
afterAll(async () => {
  await db?.close();
  await dropSchema(schema);
});

interface StoredVector {
  noteId: string;
  version: number;
  current: boolean;
  status: string;
  claim: string;
  model: string | null;
  vector: number[];
}

async function storedVectors(tenantId: string): Promise<StoredVector[]> {
  const { rows } = await withTenant(db, tenantId, (tx) =>
    tx.query(
      `SELECT v.note_id, v.version, v.version = n.current_version AS current, n.status, v.claim, v.embedding_model,
              v.embedding::text AS e
         FROM note_versions v JOIN notes n ON n.tenant_id = v.tenant_id AND n.note_id = v.note_id
        WHERE v.embedding IS NOT NULL ORDER BY v.note_id, v.version`,
    ),
  );
  return (rows as Array<Record<string, unknown>>).map((r) => ({
    noteId: r['note_id'] as string,
    version: Number(r['version']),
    current: r['current'] as boolean,
    status: r['status'] as string,
    claim: r['claim'] as string,
    model: r['embedding_model'] as string | null,
    vector: JSON.parse(r['e'] as string) as number[],
  }));
}

describe('vectors copied across an embedding-model switch', () => {
  it('keep their model and are re-embedded, so every active note has a vector of the new model after the switch', async () => {
    const tenantId = freshTenant('vecmodel');
    const [a, b, c] = [freshNoteId(), freshNoteId(), freshNoteId()];
    const claims = {
      a1: 'Invoices are due in 30 days.',
      a2: 'Invoices are due in 45 days.',
      b: 'The billing API returns amounts in cents.',
      c1: 'Deploys freeze on Fridays.',
      c2: 'Deploys freeze on Thursdays and Fridays.',
    };
    const old = { db, embedder: lexical };
    // The older deployment wrote and embedded every version with its own model.
    await applyNoteBatch(db, {
      tenantId,
      runId: 'old-1',
      batchNo: 0,
      actor: 'test',
      ops: [createOp(a, { claim: claims.a1 }), createOp(b, { claim: claims.b }), createOp(c, { claim: claims.c1 })],
    });
    await embedRunClaims(old, { tenantId, runId: 'old-1', batchNo: 0 });
    const revise = (noteId: string, claim: string) => ({
      op: 'newVersion' as const,
      action: 'revise' as const,
      noteId,
      expectedVersion: 1,
      reason: 'corrected',
      changes: { claim },
    });
    await applyNoteBatch(db, {
      tenantId,
      runId: 'old-2',
      batchNo: 0,
      actor: 'test',
      ops: [revise(a, claims.a2), revise(c, claims.c2)],
    });
    await embedRunClaims(old, { tenantId, runId: 'old-2', batchNo: 0 });

    // A rebuild with the new model embeds every page...
    const now = { db, embedder: e5 };
    const key = { tenantId, reindexId: `vecmodel/${tenantId}` };
    const start = await beginReindex(now, key);
    expect(start.total).toBe(3);
    await reembedPage(now, { ...key, model: start.model, after: null, limit: 100 });
    // ...then, before it switches, a run reinforces B and an operator rolls A back to version 1:
    // both copy a vector the old model produced.
    await applyNoteBatch(db, {
      tenantId,
      runId: 'during',
      batchNo: 0,
      actor: 'test',
      ops: [{ op: 'newVersion', action: 'reinforce', noteId: b, expectedVersion: 1, reason: 'seen again' }],
    });
    const request = (noteId: string, id: string) => ({
      tenantId,
      noteId,
      toVersion: 1,
      reason: 'the revision was wrong',
      operator: 'ops@test',
      requestId: `rollback-note/${id}`,
    });
    // The rollback workflows embed what the rollback wrote right after it (reindexBatch).
    const rollback = async (noteId: string, id: string) => {
      await rollbackNote(now, request(noteId, id));
      await embedRunClaims(now, { tenantId, runId: rollbackNoteBatchRunId(`rollback-note/${id}`), batchNo: 0 });
    };
    await rollback(a, `${tenantId}-a`);
    await switchEmbeddings(now, { ...key, model: start.model, dimension: start.dimension });
    // After the switch, C is rolled back to a version only the old model ever embedded.
    await rollback(c, `${tenantId}-c`);

    const stored = await storedVectors(tenantId);
    const active = stored.filter((v) => v.current && v.status === 'active');
    expect(active.map((v) => v.claim).sort()).toEqual([claims.a1, claims.b, claims.c1].sort());
    const fresh = await e5.embed(
      active.map((v) => v.claim),
      { kind: 'passage' },
    );
    active.forEach((v, i) => {
      expect(v.model, v.claim).toBe(e5.name);
      expect(dot(v.vector, fresh[i] as number[]), v.claim).toBeCloseTo(1, 3);
    });
    // Every stored vector, current or not, is the one its stamped model gives for its claim.
    const byModel = new Map([
      [e5.name, e5],
      [lexical.name, lexical],
    ]);
    for (const v of stored) {
      const model = byModel.get(v.model ?? '');
      expect(model, `${v.noteId}#${v.version} stamped ${v.model}`).toBeDefined();
      const [want] = await (model as Embedder).embed([v.claim], { kind: 'passage' });
      expect(dot(v.vector, want as number[]), `${v.noteId}#${v.version}`).toBeCloseTo(1, 3);
    }
  }, 120_000);
});
