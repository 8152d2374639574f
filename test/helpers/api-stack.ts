import { createHash, randomBytes } from 'node:crypto';
import { createApiApp } from '../../src/api/app.ts';
import { listen, type RunningServer } from '../../src/api/server.ts';
import { openArchive, type ArchiveStore } from '../../src/archive/index.ts';
import { createLazyConflictReporter } from '../../src/conflicts/lazy-reporter.ts';
import type { Config } from '../../src/config.ts';
import { applyNoteBatch, openDb, type Db } from '../../src/db/index.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { connectTemporal } from '../../src/runtime.ts';
import { createOp, freshNoteId, freshTenant } from './notes.ts';
import { dropSchema, pipelineConfig } from './pipeline.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export interface ApiStack {
  url: string;
  config: Config;
  db: Db;
  archive: ArchiveStore;
  tenants: { a: string; b: string };
  tokens: { a: string; b: string };
  /** One note per tenant, stored before the server started. */
  notes: { a: { noteId: string; claim: string }; b: { noteId: string; claim: string } };
  logged: string[];
  close(): Promise<void>;
}

/**
 * The API app on a real loopback port over the real stack: PostgreSQL (a schema of its own), the
 * S3 archive (a prefix of its own), and Temporal for conflicts (a task queue no worker polls,
 * so a reported conflict starts a monitor that only waits). Tokens are random per run.
 */
export async function startApiOnStack(name: string, temporalAddress?: string): Promise<ApiStack> {
  const { config, schema } = pipelineConfig(name);
  const embedder = createHashingEmbedder(config.embedding.dimension);
  const db = await openDb(config.database, { dimension: config.embedding.dimension, schema });
  const archive = openArchive(config.archive);
  const tenants = { a: freshTenant('api-a'), b: freshTenant('api-b') };
  const tokens = { a: `tok-a-${randomBytes(16).toString('hex')}`, b: `tok-b-${randomBytes(16).toString('hex')}` };
  const notes = {
    a: { noteId: freshNoteId(), claim: 'The payroll export runs on Fridays.' },
    b: { noteId: freshNoteId(), claim: 'The payroll export runs on Mondays.' },
  };
  for (const key of ['a', 'b'] as const) {
    const [embedding] = await embedder.embed([notes[key].claim]);
    await applyNoteBatch(db, {
      tenantId: tenants[key],
      runId: 'run-api',
      batchNo: 0,
      actor: 'test',
      ops: [{ ...createOp(notes[key].noteId, { claim: notes[key].claim }), embedding: embedding! }],
    });
  }
  const temporal = { ...config, temporal: { ...config.temporal, address: temporalAddress ?? config.temporal.address } };
  const conflicts = createLazyConflictReporter({
    connect: () => connectTemporal(temporal, { connectTimeoutMs: 2000 }),
    describe: `Temporal at ${temporal.temporal.address}`,
    taskQueue: config.temporal.taskQueue,
    threshold: 1000,
    cooldownSeconds: 60,
  });
  const logged: string[] = [];
  const app = createApiApp({
    db,
    embedder,
    archive,
    conflicts,
    tokens: [
      { tenantId: tenants.a, sha256: sha(tokens.a) },
      { tenantId: tenants.b, sha256: sha(tokens.b) },
    ],
    log: (l) => logged.push(l),
  });
  const server: RunningServer = await listen(app, { port: 0 });
  return {
    url: server.url,
    config,
    db,
    archive,
    tenants,
    tokens,
    notes,
    logged,
    async close() {
      await server.close();
      await conflicts.close();
      await archive.close();
      await db.close();
      // The owner login: the runtime login owns no schema.
      await dropSchema(schema);
    },
  };
}
