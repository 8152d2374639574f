import { createHash, randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { listen, type RunningServer } from '../../src/api/server.ts';
import { openArchive, type ArchiveStore } from '../../src/archive/index.ts';
import { openDb, type Db } from '../../src/db/index.ts';
import { createIngestIndexer, type IngestIndexer } from '../../src/record-index/ingest-indexer.ts';
import { openRecallEmbedder } from '../../src/runtime.ts';
import { dropSchema, pipelineConfig } from '../helpers/pipeline.ts';

// What a user tells an agent in the morning must be recallable in the afternoon, before any
// nightly run: the records API indexes what it archives. Real PostgreSQL, S3 and embedding model.

const { config, schema } = pipelineConfig('api_ingest_index');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const nextId = monotonicFactory();
const token = `tok-${randomBytes(16).toString('hex')}`;
const tenantId = 'ingest-acme';

let db: Db;
let archive: ArchiveStore;
let indexer: IngestIndexer;
let servers: RunningServer[] = [];
let withIndex: string;
let withoutIndex: string;
const logged: string[] = [];

beforeAll(async () => {
  db = await openDb(config.database, { dimension: config.embedding.dimension, schema });
  archive = openArchive(config.archive);
  const embedder = await openRecallEmbedder(config);
  indexer = createIngestIndexer({ db, archive, embedder }, (l) => logged.push(l));
  const tokens = [{ tenantId, sha256: sha(token) }];
  const start = async (recordIndexer?: IngestIndexer) => {
    const app = createApiApp({ db, embedder, archive, tokens, ...(recordIndexer ? { recordIndexer } : {}) });
    const server = await listen(app, { port: 0 });
    servers.push(server);
    return server.url;
  };
  withIndex = await start(indexer);
  withoutIndex = await start();
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  servers = [];
  await archive?.close();
  await db?.close();
  await dropSchema(schema);
});

async function post(url: string, path: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const correction = (text: string, sessionId: string) => ({
  id: nextId(),
  agentId: 'report-writer',
  sessionId,
  userId: 'u-dana',
  kind: 'user_correction',
  observedAt: new Date().toISOString(),
  text,
});

const recalledTexts = async (url: string, query: string) => {
  const answer = (await post(url, '/v1/recall', { query, k: 5 })) as { records: Array<{ text: string }> };
  return answer.records.map((r) => r.text);
};

describe('records indexed as they are appended', () => {
  it('makes a correction recallable the same day, with no consolidation run', async () => {
    const text = 'I want the weekly revenue report as a table, not as prose.';
    const appended = await post(withIndex, '/v1/records', { records: [correction(text, 's-morning')] });
    expect(appended.accepted).toBe(1);
    await indexer.idle();
    expect(await recalledTexts(withIndex, 'weekly revenue report format')).toContain(text);
    expect(logged).toEqual([]);
  });

  it('does not find it when the server has no indexer (the control: only a nightly run would)', async () => {
    const text = 'The quarterly churn summary must list cancelled accounts by region.';
    await post(withoutIndex, '/v1/records', { records: [correction(text, 's-noon')] });
    await indexer.idle();
    expect(await recalledTexts(withoutIndex, 'quarterly churn summary cancelled accounts')).not.toContain(text);
  });

  it('indexes a conversation sent as messages too', async () => {
    const text = 'Always send the invoice reminders in German to the Berlin customers.';
    await post(withIndex, '/v1/records', {
      sessionId: 's-afternoon',
      agentId: 'report-writer',
      userId: 'u-dana',
      messages: [{ role: 'user', content: text }],
    });
    await indexer.idle();
    expect(await recalledTexts(withIndex, 'invoice reminders language Berlin customers')).toContain(text);
  });
});
