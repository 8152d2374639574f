import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, type ApiAppDeps } from '../../../src/api/app.ts';
import { listNotes, selectUsageForTasks, withTenant } from '../../../src/db/index.ts';
import type { Embedder } from '../../../src/embeddings/embedder.ts';
import { indexRecords } from '../../../src/record-index/index-records.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

// The API's per-token limits, deadline, identifier checks and audit-only asOf, on the app itself
// over PGlite (no port): each test fails when its protection is taken out.
const ports = portsForThisFile();
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const tenantId = freshTenantId('hard');
const AGENT = 'agent-token-0123456789abcdef-a';
const OTHER = 'agent-token-0123456789abcdef-b';
const AUDIT = 'audit-token-0123456789abcdef-c';
const USER_1 = 'user-one-token-0123456789abcdef';
const USER_2 = 'user-two-token-0123456789abcdef';
const tokens = [
  { tenantId, sha256: sha(AGENT) },
  { tenantId, sha256: sha(USER_1), userId: 'user-1' },
  { tenantId, sha256: sha(USER_2), userId: 'user-2' },
  { tenantId, sha256: sha(OTHER) },
  { tenantId, sha256: sha(AUDIT), role: 'audit' as const },
];
const roomy = { ratePerSecond: 1000, burst: 1000, concurrency: 100, deadlineMs: 10_000 };
let noteId: string;

function app(overrides: Partial<ApiAppDeps> = {}) {
  const created = createApiApp({ db: ports.db, embedder: ports.embedder, tokens, limits: roomy, ...overrides });
  return {
    recall: (token: string, body: Record<string, unknown>) =>
      created.request('http://api.test/v1/recall', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
    get: (token: string, path: string) =>
      created.request(`http://api.test${path}`, { headers: { authorization: `Bearer ${token}` } }),
    mcp: (token: string) =>
      created.request('http://api.test/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
  };
}

async function error(res: Response): Promise<{ status: number; code: string; reason: string }> {
  return ((await res.json()) as { error: { status: number; code: string; reason: string } }).error;
}

/** An embedder that holds every call until `release()`: requests that stay in flight. */
function gatedEmbedder(): { embedder: Embedder; release(): void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    embedder: {
      ...ports.embedder,
      embed: async (texts, options) => gate.then(() => ports.embedder.embed(texts, options)),
    },
    release: () => open(),
  };
}

beforeAll(async () => {
  await archiveRecords(ports, preferenceSession(tenantId, 'user-1'));
  await consolidate(ports, tenantId, 'run-1');
  await indexRecords(ports, { tenantId });
  const note = (await listNotes(ports.db, { tenantId, limit: 10 })).notes[0];
  if (!note) throw new Error('the consolidation wrote no note');
  noteId = note.noteId;
});

describe('per-token rate limit', () => {
  it('answers 429 with retry-after once a token spends its burst, and leaves other tokens alone', async () => {
    const api = app({ limits: { ...roomy, ratePerSecond: 0.5, burst: 2 } });
    expect((await api.recall(AGENT, { query: 'report format' })).status).toBe(200);
    expect((await api.recall(AGENT, { query: 'report format' })).status).toBe(200);
    const limited = await api.recall(AGENT, { query: 'report format' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await error(limited)).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await api.recall(OTHER, { query: 'report format' })).status).toBe(200);
  });

  it('counts /mcp against the same bucket', async () => {
    const api = app({ limits: { ...roomy, ratePerSecond: 0.5, burst: 1 } });
    expect((await api.mcp(AGENT)).status).toBe(200);
    expect((await api.mcp(AGENT)).status).toBe(429);
    expect((await api.recall(AGENT, { query: 'report format' })).status).toBe(429);
  });
});

describe('per-token concurrency cap', () => {
  it('refuses a request beyond the cap while the others run, and admits it once they end', async () => {
    const gated = gatedEmbedder();
    const api = app({ embedder: gated.embedder, limits: { ...roomy, concurrency: 2 } });
    const running = [api.recall(AGENT, { query: 'a' }), api.recall(AGENT, { query: 'b' })];
    const refused = await api.recall(AGENT, { query: 'c' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await error(refused)).reason).toMatch(/2 requests in flight \(limit 2\)/);
    gated.release();
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200]);
    expect((await api.recall(AGENT, { query: 'd' })).status).toBe(200);
  });
});

describe('request deadline', () => {
  it('answers 504 when a request outlives its deadline, and keeps its slot until the work ends', async () => {
    const gated = gatedEmbedder();
    const api = app({ embedder: gated.embedder, limits: { ...roomy, concurrency: 1, deadlineMs: 50 } });
    const late = await api.recall(AGENT, { query: 'report format' });
    expect(late.status).toBe(504);
    const body = await error(late);
    expect(body).toMatchObject({ code: 'deadline_exceeded' });
    expect(body.reason).toMatch(/50 ms/);
    expect((await api.recall(AGENT, { query: 'again' })).status).toBe(429);
    gated.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await api.recall(AGENT, { query: 'again' })).status).toBe(200);
  });

  it('stops the work it abandons: no further query and no usage logged for its task', async () => {
    const gated = gatedEmbedder();
    const api = app({ embedder: gated.embedder, limits: { ...roomy, deadlineMs: 50 } });
    const late = await api.recall(AGENT, { query: 'reports as a table', taskId: 'task-abandoned' });
    expect(late.status).toBe(504);
    gated.release();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const usage = (tasks: string[]) =>
      withTenant(ports.db, tenantId, (tx) => selectUsageForTasks(tx, { taskIds: tasks }));
    expect(await usage(['task-abandoned'])).toEqual([]);
    // The control: the same request within its deadline logs what it returned.
    const inTime = await app().recall(AGENT, { query: 'reports as a table', taskId: 'task-in-time' });
    expect(inTime.status).toBe(200);
    expect((await usage(['task-in-time'])).length).toBeGreaterThan(0);
  });
});

describe('control characters in identifiers', () => {
  it.each([
    ['taskId', { query: 'report format', taskId: 'task\u0000one' }],
    ['taskId', { query: 'report format', taskId: 'task\u001bone' }],
    ['tenantId', { query: 'report format', tenantId: `${tenantId}\u0000` }],
    ['query', { query: 'report\u0000format' }],
  ])('refuses %s with 400 naming it', async (field, body) => {
    const res = await app().recall(AGENT, body);
    expect(res.status).toBe(400);
    expect((await error(res)).reason).toMatch(new RegExp(`^${field}: control characters`));
  });

  it('refuses a note id with NUL in the path, and still accepts tab and newline in the query', async () => {
    const api = app();
    const res = await api.get(AGENT, `/v1/notes/${encodeURIComponent(`${noteId}\u0000`)}`);
    expect(res.status).toBe(400);
    expect((await error(res)).reason).toMatch(/^noteId: control characters/);
    expect((await api.get(AGENT, `/v1/notes/${noteId}`)).status).toBe(200);
    expect((await api.recall(AGENT, { query: 'report\tformat\nplease' })).status).toBe(200);
  });
});

describe('point-in-time recall', () => {
  it('refuses asOf to an agent token with 403 saying an audit token is needed', async () => {
    const res = await app().recall(AGENT, { query: 'report format', asOf: '2026-11-05T12:00:00Z' });
    expect(res.status).toBe(403);
    expect((await error(res)).reason).toMatch(/asOf .*audit token/);
  });

  it('answers asOf to an audit token', async () => {
    const res = await app().recall(AUDIT, { query: 'report format', asOf: '2026-11-05T12:00:00Z' });
    expect(res.status).toBe(200);
  });
});

describe('user-bound tokens', () => {
  type Recalled = {
    notes: Array<{ noteId: string; scope: { level: string; key: string } }>;
    records: Array<{ userId?: string }>;
  };
  const recalled = async (token: string): Promise<Recalled> =>
    (await (await app().recall(token, { query: 'show me reports as a table' })).json()) as Recalled;

  it('read their own user-scoped notes and records', async () => {
    const own = await recalled(USER_1);
    expect(own.notes.map((n) => n.noteId)).toContain(noteId);
    expect((await app().get(USER_1, `/v1/notes/${noteId}`)).status).toBe(200);
  });

  it('ask as their user: a question in the first person is matched as that user', async () => {
    const matchedAs = async (token: string, body: Record<string, unknown>) =>
      ((await (await app().recall(token, body)).json()) as { matchedAs: string }).matchedAs;
    expect(await matchedAs(USER_1, { query: 'How do I like my reports?' })).toBe(
      "How does user-1 like user-1's reports?",
    );
    expect(await matchedAs(AGENT, { query: 'How do I like my reports?' })).toBe('How do I like my reports?');
    expect(await matchedAs(AGENT, { query: 'How do I like my reports?', askedBy: 'user-2' })).toBe(
      "How does user-2 like user-2's reports?",
    );
  });

  it("never see another user's notes or records, by recall or by id", async () => {
    const everything = await recalled(AGENT);
    expect(everything.notes.map((n) => n.noteId)).toContain(noteId);
    expect(everything.records.some((r) => r.userId === 'user-1')).toBe(true);
    const other = await recalled(USER_2);
    expect(other.notes.map((n) => n.noteId)).not.toContain(noteId);
    expect(other.notes.filter((n) => n.scope.level === 'user' || n.scope.level === 'session')).toEqual([]);
    expect(other.records.filter((r) => r.userId !== 'user-2')).toEqual([]);
    expect((await app().get(USER_2, `/v1/notes/${noteId}`)).status).toBe(404);
    expect((await app().get(USER_2, `/v1/notes/${noteId}/history`)).status).toBe(404);
  });
});

describe('token grants', () => {
  it('refuses to build an app whose token list holds one digest twice', () => {
    expect(() =>
      createApiApp({
        db: ports.db,
        embedder: ports.embedder,
        tokens: [...tokens, { tenantId: 'other', sha256: sha(AGENT) }],
      }),
    ).toThrow(/entry 1 and API tokens entry 6 hold the same token/);
  });
});
