import { Client, Connection } from '@temporalio/client';
import { monotonicFactory } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readObject } from '../../src/archive/index.ts';
import { createNocturneClient, NocturneApiError } from '../../src/client/index.ts';
import { getNoteHistory } from '../../src/db/index.ts';
import { startApiOnStack, type ApiStack } from '../helpers/api-stack.ts';

// HTTP API v1 on a real port over the real stack (PostgreSQL, the S3 archive, Temporal), called
// through the typed client as an agent would, and with raw requests where the client would
// refuse to send what is tested.

let api: ApiStack;
let unreachable: ApiStack;
const nextId = monotonicFactory();

beforeAll(async () => {
  api = await startApiOnStack('api_v1');
  unreachable = await startApiOnStack('api_v1_down', '127.0.0.1:1');
}, 120_000);

afterAll(async () => {
  await api?.close();
  await unreachable?.close();
});

const clientA = () => createNocturneClient({ baseUrl: api.url, token: api.tokens.a });

async function raw(path: string, init: { token?: string; body?: string; contentType?: string; method?: string } = {}) {
  const res = await fetch(`${api.url}${path}`, {
    method: init.method ?? 'POST',
    headers: {
      'content-type': init.contentType ?? 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; reason: string } } };
}

const record = (tenantId: string | undefined, over: Record<string, unknown> = {}) => ({
  id: nextId(),
  ...(tenantId ? { tenantId } : {}),
  agentId: 'billing-assistant',
  sessionId: 'session-api-1',
  kind: 'user_message',
  observedAt: new Date().toISOString(),
  text: 'Please show the invoice totals as a table.',
  ...over,
});

async function archivedLines(objectKey: string) {
  const lines: Array<{ id: string; kind: string; text?: string }> = [];
  for await (const r of readObject(api.archive, objectKey)) lines.push(r.record as never);
  return lines;
}

describe('POST /v1/records', () => {
  it('archives raw records through the archive writer and lists each refused one with its line and reason', async () => {
    const good = [record(api.tenants.a), record(undefined)];
    const bad = [
      record(api.tenants.a, { kind: 'shout' }),
      record(api.tenants.b),
      { ...record(api.tenants.a), id: good[0]!.id },
    ];
    const result = await clientA().appendRecords([good[0], bad[0], good[1], bad[1], bad[2]]);
    expect(result.accepted).toBe(2);
    expect(result.rejected.map((r) => r.line)).toEqual([2, 4, 5]);
    expect(result.rejected[0]!.reason).toMatch(/^schema: kind/);
    expect(result.rejected[1]!.reason).toMatch(/does not match the batch tenant/);
    expect(result.rejected[2]!.reason).toMatch(/duplicate id/);
    const stored = await archivedLines(result.objects[0]!.objectKey);
    expect(stored.map((r) => r.id)).toEqual(good.map((r) => r.id));
    const again = await clientA().appendRecords(good);
    expect(again.objects.map((o) => o.status)).toEqual(['alreadyPresent']);
  });

  it('takes an NDJSON body line by line, naming lines that are not JSON', async () => {
    const body = [JSON.stringify(record(undefined)), '{"id": ', '', JSON.stringify(record(undefined))].join('\n');
    const res = await raw('/v1/records', { token: api.tokens.a, body, contentType: 'application/x-ndjson' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      accepted: 2,
      rejected: [{ line: 2, reason: expect.stringMatching(/^invalid JSON/) }],
    });
  });

  it('archives chat messages as records with server-assigned ids, in order, kind by role', async () => {
    const result = await clientA().appendMessages({
      sessionId: 'chat-1',
      agentId: 'support-bot',
      userId: 'u-7',
      messages: [
        { role: 'user', content: 'My invoice shows cents, not dollars.' },
        { role: 'assistant', content: 'I will show amounts in dollars from now on.' },
        { role: 'tool', content: '{"total": 1200}' },
      ],
    });
    expect(result.accepted).toBe(3);
    expect(result.recordIds).toHaveLength(3);
    const stored = await archivedLines(result.objects[0]!.objectKey);
    expect(stored.map((r) => [r.id, r.kind])).toEqual([
      [result.recordIds![0], 'user_message'],
      [result.recordIds![1], 'agent_message'],
      [result.recordIds![2], 'tool_result'],
    ]);
    expect(stored[0]).toMatchObject({ userId: 'u-7', sessionId: 'chat-1', source: 'user', tenantId: api.tenants.a });
  });

  it('answers 403 for another tenant, 400 naming each bad field, and 401 before reading the body', async () => {
    await expect(clientA().appendRecords([record(undefined)], { tenantId: api.tenants.b })).rejects.toMatchObject({
      status: 403,
    });
    const bad = await raw('/v1/records', {
      token: api.tokens.a,
      body: JSON.stringify({ sessionId: '', agentId: 'a', messages: [{ role: 'robot', content: 'x' }] }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.reason).toMatch(/^sessionId: .*; messages\.0\.role: /);
    const anonymous = await raw('/v1/records', { body: '{"records": ' });
    expect(anonymous).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
  });
});

describe('POST /v1/conflicts', () => {
  it('signals the tenant’s conflict monitor, starting it (signal-with-start)', async () => {
    const sent = await clientA().reportConflict({ noteIds: [api.notes.a.noteId], reason: 'the export ran on Monday' });
    expect(sent.workflowId).toBe(`conflicts/${api.tenants.a}`);
    const connection = await Connection.connect({ address: api.config.temporal.address });
    try {
      const handle = new Client({ connection }).workflow.getHandle(sent.workflowId, sent.runId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const again = await clientA().reportConflict({ noteIds: [api.notes.a.noteId] });
      expect(again.runId).toBe(sent.runId);
      await handle.terminate('test over');
    } finally {
      await connection.close();
    }
  });

  it('answers 503 with the reason when Temporal is unreachable, and recall still works', async () => {
    const client = createNocturneClient({ baseUrl: unreachable.url, token: unreachable.tokens.a });
    const error = await client.reportConflict({ noteIds: ['n1'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NocturneApiError);
    expect(error).toMatchObject({
      status: 503,
      reason: expect.stringMatching(/^Temporal at 127\.0\.0\.1:1 is unreachable/),
    });
    const recalled = await client.recall({ query: 'payroll export', include: ['notes'] });
    expect(recalled.notes.map((n) => n.noteId)).toEqual([unreachable.notes.a.noteId]);
  });

  it('refuses an empty report with 400 before contacting Temporal', async () => {
    const res = await raw('/v1/conflicts', { token: api.tokens.a, body: JSON.stringify({ noteIds: [] }) });
    expect(res.status).toBe(400);
    expect(res.body.error?.reason).toMatch(/^noteIds: /);
  });
});

describe('POST /v1/feedback', () => {
  it('stores feedback on a recalled note, archived as a feedback record', async () => {
    const recalled = await clientA().recall({ query: 'when does the payroll export run', taskId: 'task-fb-1' });
    const noteId = recalled.notes[0]!.noteId;
    const fb = await clientA().feedback({ noteId, verdict: 'wrong', taskId: 'task-fb-1', comment: 'it ran on Monday' });
    expect(fb).toMatchObject({ tenantId: api.tenants.a, noteId, version: 1, verdict: 'wrong' });
    const [stored] = await archivedLines(fb.objectKey);
    expect(stored).toMatchObject({ id: fb.recordId, kind: 'feedback', text: expect.stringMatching(/Monday/) });
  });

  it('answers 404 for a note of another tenant and 400 for an unknown verdict', async () => {
    await expect(clientA().feedback({ noteId: api.notes.b.noteId, verdict: 'helped' })).rejects.toMatchObject({
      status: 404,
    });
    const res = await raw('/v1/feedback', {
      token: api.tokens.a,
      body: JSON.stringify({ noteId: api.notes.a.noteId, verdict: 'meh' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error?.reason).toMatch(/^verdict: /);
  });
});

describe('GET /v1/notes/{id}', () => {
  it('reads a note and its history, and only in the token’s tenant', async () => {
    const { note } = await clientA().getNote(api.notes.a.noteId);
    expect(note).toMatchObject({ noteId: api.notes.a.noteId, claim: api.notes.a.claim, version: 1 });
    const history = await clientA().noteHistory(api.notes.a.noteId);
    const versions = (await getNoteHistory(api.db, { tenantId: api.tenants.a, noteId: api.notes.a.noteId })).versions;
    expect(history.versions.map((v) => v.version)).toEqual(versions.map((v) => v.version));
    expect(history.currentVersion).toBe(1);
    await expect(clientA().getNote(api.notes.b.noteId)).rejects.toMatchObject({ status: 404 });
    await expect(clientA().noteHistory(api.notes.b.noteId)).rejects.toMatchObject({ status: 404 });
    const anonymous = await raw(`/v1/notes/${api.notes.a.noteId}`, { method: 'GET' });
    expect(anonymous.status).toBe(401);
  });
});
