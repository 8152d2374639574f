import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { startApiOnStack, type ApiStack } from '../helpers/api-stack.ts';

// The OpenAPI document, the docs page and the MCP endpoint of the running API, over the real
// stack; the MCP side is driven by the SDK's own client, as an agent framework would.

let api: ApiStack;

beforeAll(async () => {
  api = await startApiOnStack('api_mcp');
}, 120_000);

afterAll(async () => api?.close());

/** Every v1 route the app answers, in OpenAPI form (`/v1/notes/{id}`), as `method path`. */
function servedV1Routes(): string[] {
  const app = createApiApp({ db: api.db, embedder: createHashingEmbedder(8), tokens: [] });
  return [
    ...new Set(
      app.routes
        .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`),
    ),
  ].sort();
}

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'nocturne-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', api.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document listing every v1 route the server answers, with its schemas', async () => {
    const res = await fetch(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    const served = servedV1Routes();
    expect(served.length).toBeGreaterThanOrEqual(6);
    expect(listed.sort()).toEqual(served);
    expect(Object.keys(doc.components.schemas.FeedbackRequest?.properties ?? {})).toEqual(
      expect.arrayContaining(['noteId', 'verdict', 'taskId']),
    );
    // A note found by full text alone because its vector is not written yet says so.
    expect(doc.components.schemas.RecallResult?.properties?.['notes']).toMatchObject({
      items: {
        properties: { vectorPending: { type: 'boolean', description: expect.stringMatching(/no vector yet/) } },
      },
    });
    expect(doc.paths['/v1/records']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { oneOf: expect.any(Array) } } },
    });
  });

  it('has a readable docs page naming every route, with nothing loaded from elsewhere', async () => {
    const res = await fetch(`${api.url}/docs`);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const route of servedV1Routes()) expect(html).toContain(route.split(' ')[1]);
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
  });
});

describe('MCP endpoint', () => {
  it('lists the tools to an MCP client and recalls the token’s tenant’s notes', async () => {
    const client = await mcpClient(api.tokens.a);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['recall', 'append_records', 'report_conflict', 'get_note']),
      );
      const answer = await client.callTool({
        name: 'recall',
        arguments: { query: 'when does the payroll export run' },
      });
      expect(answer.isError).toBeFalsy();
      const result = JSON.parse((answer.content as Array<{ text: string }>)[0]!.text) as {
        tenantId: string;
        notes: Array<{ claim: string }>;
      };
      expect(result.tenantId).toBe(api.tenants.a);
      expect(result.notes.map((n) => n.claim)).toEqual([api.notes.a.claim]);
    } finally {
      await client.close();
    }
  });

  it('reads a note and appends records through tools, and reports refusals as tool errors', async () => {
    const client = await mcpClient(api.tokens.b);
    try {
      const note = await client.callTool({ name: 'get_note', arguments: { noteId: api.notes.b.noteId } });
      expect((note.content as Array<{ text: string }>)[0]!.text).toContain(api.notes.b.claim);
      const foreign = await client.callTool({ name: 'get_note', arguments: { noteId: api.notes.a.noteId } });
      expect(foreign).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^404 not_found/) }] });
      const appended = await client.callTool({
        name: 'append_records',
        arguments: { sessionId: 's-mcp', agentId: 'mcp-agent', messages: [{ role: 'user', content: 'hello' }] },
      });
      expect(JSON.parse((appended.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ accepted: 1 });
    } finally {
      await client.close();
    }
  });

  it('refuses a request without a valid bearer token with 401', async () => {
    const res = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    await expect(mcpClient('not-a-token-of-anyone-here')).rejects.toThrow();
  });
});
