import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyNoteBatch, insertMemoryUsage, listNotes } from '../../../src/db/index.ts';
import { createInspectorApp, createOperatorAuth, SESSION_COOKIE } from '../../../src/inspector/index.ts';
import type { RollbackLauncher } from '../../../src/inspector/workflows.ts';
import { createOp, evidenceRef, freshNoteId } from '../../helpers/notes.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

// The inspector's pages and buttons over PGlite and a file archive, with a recording launcher in
// place of Temporal (the browser test in test/integration runs the real workflow).
const ports = portsForThisFile();
const OPERATOR_TOKEN = 'op-token-ada-0123456789abcdef';
const TENANT_TOKEN = 'tenant-read-token-0123456789abcdef';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const operators = [{ operator: 'ada@ops', sha256: sha(OPERATOR_TOKEN) }];
const started: Array<{ tenantId: string; noteId: string; input: Record<string, unknown> }> = [];
const launcher: RollbackLauncher = {
  async start(tenantId, noteId, input) {
    started.push({ tenantId, noteId, input });
    return `rollback-note/${tenantId}/${noteId}/test-${started.length}`;
  },
  async outcome(workflowId) {
    return { workflowId, status: 'completed', result: { noop: false, changes: [] } };
  },
};
const tenantId = freshTenantId('insp');
let noteId: string;
let app: Hono;
const bearer = { authorization: `Bearer ${OPERATOR_TOKEN}` };
const get = (path: string, headers: Record<string, string> = bearer) =>
  app.request(`http://inspector.test/inspector${path}`, { headers });
const post = (path: string, form: Record<string, string>, headers: Record<string, string> = bearer) =>
  app.request(`http://inspector.test/inspector${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
const notePath = () => `/tenants/${tenantId}/notes/${noteId}`;

beforeAll(async () => {
  await archiveRecords(ports, preferenceSession(tenantId, 'user-1'));
  await consolidate(ports, tenantId, 'run-1');
  const note = (await listNotes(ports.db, { tenantId, limit: 10 })).notes[0];
  if (!note) throw new Error('the consolidation wrote no note');
  noteId = note.noteId;
  await applyNoteBatch(ports.db, {
    tenantId,
    runId: 'run-2',
    batchNo: 0,
    actor: 'consolidate/test',
    ops: [
      {
        op: 'newVersion',
        action: 'revise',
        noteId,
        expectedVersion: 1,
        changes: { claim: `${note.claim} Charts are fine too.` },
        reason: 'a later statement',
      },
    ],
  });
  await insertMemoryUsage(ports.db, {
    tenantId,
    rows: [{ taskId: 'task-42', noteId, version: 2, rank: 1, score: 0.87, at: '2026-11-06T09:00:00.000Z' }],
  });
  // Mounted where `nocturne serve` mounts it.
  app = new Hono().route(
    '/inspector',
    createInspectorApp({
      db: ports.db,
      archive: ports.archive,
      operators,
      rollbacks: launcher,
      tenants: [tenantId],
      retire: { enabled: false, why: 'retiring is not available in this build' },
      log: () => {},
    }),
  );
});

describe('who may open the inspector', () => {
  it('answers 401 with the login form to no token and to a tenant read token', async () => {
    for (const headers of [{}, { authorization: `Bearer ${TENANT_TOKEN}` }] as Array<Record<string, string>>) {
      const res = await get('', headers);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Operator login');
    }
    expect((await post('/login', { token: TENANT_TOKEN }, {})).status).toBe(401);
  });

  it('logs an operator in with a session cookie that opens the pages; a forged cookie does not', async () => {
    const login = await post('/login', { token: OPERATOR_TOKEN }, {});
    expect(login.status).toBe(303);
    const cookie = /nocturne_operator=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0] ?? '';
    expect(login.headers.get('set-cookie')).toMatch(/HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/);
    const page = await get('', { cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('ada@ops');
    const forged = cookie.replace(/ada%40ops|ada@ops/, 'eve');
    expect((await get('', { cookie: forged })).status).toBe(401);
  });

  it('lets sessions expire and ends them when the operator is no longer configured', () => {
    let now = 1_000;
    const auth = createOperatorAuth(operators, { now: () => now });
    const session = auth.issueSession('ada@ops');
    expect(auth.operatorOfSession(session)).toBe('ada@ops');
    expect(createOperatorAuth([], { now: () => now }).operatorOfSession(session)).toBeUndefined();
    now += 9 * 3600_000;
    expect(auth.operatorOfSession(session)).toBeUndefined();
    expect(SESSION_COOKIE).toBe('nocturne_operator');
  });

  it('refuses a form posted from another origin', async () => {
    const login = await post('/login', { token: OPERATOR_TOKEN }, {});
    const cookie = /nocturne_operator=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0] ?? '';
    const res = await post(
      `${notePath()}/rollback`,
      { toVersion: '1', reason: 'x' },
      { cookie, origin: 'http://evil.test' },
    );
    expect(res.status).toBe(403);
  });
});

describe('pages', () => {
  it('finds the note by words of its claim in any status, and not by words it lacks', async () => {
    const found = await (await get(`?tenant=${tenantId}&text=${encodeURIComponent('TABLE')}`)).text();
    expect(found).toContain(noteId);
    const none = await (await get(`?tenant=${tenantId}&text=${encodeURIComponent('%')}`)).text();
    expect(none).toContain('No note matches');
    const retired = await (await get(`?tenant=${tenantId}&text=table&status=retired`)).text();
    expect(retired).toContain('No note matches');
  });

  it('shows versions as word diffs, the audit with its chain status, and usage', async () => {
    const body = await (await get(notePath())).text();
    expect(body).toContain('<ins>Charts are fine too.</ins>');
    expect(body).toMatch(/class="badge ok">ok<\/span> the tenant's chain verifies \(\d+ entries\)/);
    expect(body).toContain('task-42');
    expect(body).toContain('Roll back to v1');
    expect(body).not.toContain('Roll back to v2');
    expect(body).toMatch(/<button type="submit" id="retire" disabled/);
  });

  it('opens the evidence from the archive and checks each line’s hash', async () => {
    const body = await (await get(`${notePath()}/evidence`)).text();
    expect(body).toMatch(/(\d+) of \1 cited records read from the archive with matching hashes/);
    expect(body).toContain('Please always show me reports as a table');
    // A note citing a real line with another hash, and a line that does not exist.
    const real = (await listNotes(ports.db, { tenantId, limit: 1 })).notes[0]!.evidence[0]!;
    const forgedId = freshNoteId();
    const bad = { ...real, contentHash: sha('something else') };
    const gone = { ...real, line: 999 };
    const foreign = evidenceRef('other tenant');
    await applyNoteBatch(ports.db, {
      tenantId,
      runId: 'run-3',
      batchNo: 0,
      actor: 'test',
      ops: [createOp(forgedId, { evidence: [bad, gone, foreign] })],
    });
    const checked = await (await get(`/tenants/${tenantId}/notes/${forgedId}/evidence`)).text();
    expect(checked).toContain('0 of 3 cited records');
    expect(checked).toContain('data-check="mismatch"');
    expect(checked).toContain('data-check="missing"');
    expect(checked).toContain('data-check="foreign"');
  });

  it('escapes what agents wrote', async () => {
    const sneaky = freshNoteId();
    await applyNoteBatch(ports.db, {
      tenantId,
      runId: 'run-4',
      batchNo: 0,
      actor: 'test',
      ops: [createOp(sneaky, { claim: 'Use <script>alert(1)</script> here.' })],
    });
    const body = await (await get(`/tenants/${tenantId}/notes/${sneaky}`)).text();
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).not.toContain('<script>alert(1)');
  });

  it('answers 404 for a note of no tenant and an invalid tenant id', async () => {
    expect((await get(`/tenants/${tenantId}/notes/no-such-note`)).status).toBe(404);
    expect((await get(`/tenants/bad%20tenant/notes/${noteId}`)).status).toBe(404);
  });
});

describe('buttons', () => {
  it('starts the rollback with the operator from the token, then shows its outcome and workflow id', async () => {
    started.length = 0;
    const res = await post(`${notePath()}/rollback`, { toVersion: '1', reason: 'wrong unit', operator: 'mallory' });
    expect(res.status).toBe(303);
    expect(started).toEqual([
      { tenantId, noteId, input: { tenantId, noteId, toVersion: 1, reason: 'wrong unit', operator: 'ada@ops' } },
    ]);
    const location = res.headers.get('location') ?? '';
    expect(location).toContain(encodeURIComponent(`rollback-note/${tenantId}/${noteId}/test-1`));
    const page = await (await get(location.replace('/inspector', ''))).text();
    expect(page).toContain(`rollback-note/${tenantId}/${noteId}/test-1`);
    expect(page).toContain('class="badge completed"');
  });

  it('refuses a rollback the workflow’s schema refuses, naming the field, and starts nothing', async () => {
    started.length = 0;
    const res = await post(`${notePath()}/rollback`, { toVersion: '0', reason: 'x' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('toVersion');
    expect((await post(`${notePath()}/rollback`, { toVersion: '1', reason: ' ' })).status).toBe(400);
    expect(started).toEqual([]);
  });

  it('keeps retire disabled, with its reason, when the workflow cannot retire', async () => {
    started.length = 0;
    const res = await post(`${notePath()}/retire`, { reason: 'bad note' });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('retiring is not available in this build');
    expect(started).toEqual([]);
  });
});
