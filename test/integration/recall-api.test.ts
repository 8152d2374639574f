import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { listen, type RunningServer } from '../../src/api/server.ts';
import { createNocturneClient, NocturneApiError } from '../../src/client/index.ts';
import { applyNoteBatch, type Db, openDb } from '../../src/db/index.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { createOp, freshNoteId, freshTenant } from '../helpers/notes.ts';
import { dropSchema, stackDatabase } from '../helpers/pipeline.ts';

// The HTTP API on a real loopback port, over the real PostgreSQL. Tokens are random per run.
const schema = `nocturne_recall_api_${randomBytes(4).toString('hex')}`;
const DIMENSION = STACK.embeddings.dimension;
const embedder = createHashingEmbedder(DIMENSION);
const tenantA = freshTenant('a');
const tenantB = freshTenant('b');
const tokenA = `tok-a-${randomBytes(16).toString('hex')}`;
const tokenB = `tok-b-${randomBytes(16).toString('hex')}`;
const auditA = `tok-audit-a-${randomBytes(16).toString('hex')}`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let db: Db;
let server: RunningServer;
const logged: string[] = [];

async function post(
  body: unknown,
  token?: string,
  raw?: string,
): Promise<{ status: number; body: { error?: { reason: string; code: string }; notes?: Array<{ claim: string }> } }> {
  const res = await fetch(`${server.url}/v1/recall`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: raw ?? JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as never };
}

beforeAll(async () => {
  db = await openDb(stackDatabase(), { dimension: DIMENSION, schema });
  for (const [tenantId, claim] of [
    [tenantA, 'Tenant A: the payroll export runs on Fridays.'],
    [tenantB, 'Tenant B: the payroll export runs on Mondays.'],
  ] as const) {
    const [embedding] = await embedder.embed([claim]);
    await applyNoteBatch(db, {
      tenantId,
      runId: 'run-api',
      batchNo: 0,
      actor: 'test',
      ops: [{ ...createOp(freshNoteId(), { claim }), embedding: embedding! }],
    });
  }
  const app = createApiApp({
    db,
    embedder,
    tokens: [
      { tenantId: tenantA, sha256: sha(tokenA) },
      { tenantId: tenantB, sha256: sha(tokenB) },
      { tenantId: tenantA, sha256: sha(auditA), role: 'audit' },
    ],
    log: (l) => logged.push(l),
  });
  server = await listen(app, { port: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await db?.close();
  await dropSchema(schema);
});

describe('recall HTTP API', () => {
  it('listens on loopback', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers a tenant through the typed client, with the token’s tenant as default', async () => {
    const client = createNocturneClient({ baseUrl: server.url, token: tokenA });
    const result = await client.recall({ query: 'when does the payroll export run', k: 5, taskId: 'agent-task-1' });
    expect(result.tenantId).toBe(tenantA);
    expect(result.notes.map((n) => n.claim)).toEqual(['Tenant A: the payroll export runs on Fridays.']);
    expect(result.notes[0]?.evidence).toHaveLength(1);
    expect(result.embedder).toBe(embedder.name);
    expect(result.stats.usageLogged).toBe(1);
    const explicit = await client.recall({ tenantId: tenantA, query: 'payroll export', k: 1 });
    expect(explicit.notes).toHaveLength(1);
  });

  it.each<[string, unknown, RegExp]>([
    ['an empty query', { query: '  ', k: 5 }, /^query: query must not be empty$/],
    ['k out of range', { query: 'payroll', k: 1000 }, /^k: .*100/],
    ['k not an integer', { query: 'payroll', k: 2.5 }, /^k: /],
    ['an unknown field', { query: 'payroll', token_budget: 10 }, /token_budget/],
    ['a bad asOf', { query: 'payroll', asOf: 'yesterday' }, /^asOf: expected an ISO 8601 date-time$/],
    ['a bad scope', { query: 'payroll', scope: { level: 'planet', key: 'x' } }, /^scope/],
    [
      'asOf with taskId',
      { query: 'payroll', asOf: '2026-01-01T00:00:00Z', taskId: 't' },
      /^taskId: cannot be combined with asOf/,
    ],
    ['a JSON array', [1, 2], /^\(body\): expected a JSON object$/],
  ])('rejects %s with 400 and the reason', async (_name, body, reason) => {
    // asOf is for audit tokens only (an agent token gets 403 before validation).
    const res = await post(body, JSON.stringify(body).includes('asOf') ? auditA : tokenA);
    expect(res.status).toBe(400);
    expect(res.body.error?.reason).toMatch(reason);
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await post(undefined, tokenA, '{"query": ');
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
  });

  it('rejects a missing or unknown token with 401 before reading the body', async () => {
    const missing = await post({ query: 'payroll' });
    expect(missing).toMatchObject({
      status: 401,
      body: { error: { reason: expect.stringMatching(/missing bearer token/) } },
    });
    const unknown = await post({ query: 'payroll' }, `tok-x-${randomBytes(16).toString('hex')}`);
    expect(unknown).toMatchObject({ status: 401, body: { error: { reason: 'unknown bearer token' } } });
    const unauthBadBody = await post(undefined, undefined, 'not json');
    expect(unauthBadBody.status).toBe(401);
  });

  it('rejects another tenant’s token with 403 and never returns its notes', async () => {
    const res = await post({ tenantId: tenantB, query: 'payroll export' }, tokenA);
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body)).not.toContain('Mondays');
    const client = createNocturneClient({ baseUrl: server.url, token: tokenB });
    await expect(client.recall({ tenantId: tenantA, query: 'payroll export' })).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    await expect(client.recall({ tenantId: tenantA, query: 'payroll export' })).rejects.toBeInstanceOf(
      NocturneApiError,
    );
    const own = await client.recall({ query: 'payroll export' });
    expect(own.notes.map((n) => n.claim)).toEqual(['Tenant B: the payroll export runs on Mondays.']);
  });

  it('never logs a token', () => {
    expect(logged.join('\n')).not.toContain(tokenA);
    expect(logged.join('\n')).not.toContain(tokenB);
  });
});
