import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ClientSource from '../../src/client/index.ts';
import { parseConfig } from '../../src/config.ts';
import { applyNoteBatch, openDb } from '../../src/db/index.ts';
import { dropSchema } from '../helpers/pipeline.ts';
import { createEmbedder } from '../../src/embeddings/create.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';
import { createOp, freshNoteId, freshTenant } from '../helpers/notes.ts';

// The client package as an agent installs it: built with `npm run build:client`, imported through
// its exports map, talking to a real `nocturne serve` process over the real stack.

type ClientModule = typeof ClientSource;

const suffix = randomBytes(4).toString('hex');
const schema = `nocturne_client_pkg_${suffix}`;
const tenantId = freshTenant('pkg');
const token = `tok-pkg-${randomBytes(16).toString('hex')}`;
const base = stackEnv();
const env = {
  ...process.env,
  ...base,
  DATABASE_URL: `${base['DATABASE_URL']}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`,
  NOCTURNE_ARCHIVE_URI: `s3://nocturne/client-pkg-${suffix}`,
  NOCTURNE_TASK_QUEUE: `client-pkg-${suffix}`,
  NOCTURNE_API_TOKENS: `${tenantId}:${token}`,
};
const config = parseConfig(env);
const note = { noteId: freshNoteId(), claim: 'Invoices are sent on the first working day of the month.' };

let serve: ChildProcess;
let baseUrl: string;
let pkg: ClientModule;

/** The package's entry as its exports map names it, after a build. */
async function importBuiltPackage(): Promise<ClientModule> {
  await promisify(execFile)('npm', ['run', 'build:client'], { timeout: 120_000 });
  const manifest = JSON.parse(await readFile('packages/client/package.json', 'utf8')) as {
    exports: { '.': { import: string; types: string } };
  };
  await readFile(resolve('packages/client', manifest.exports['.'].types));
  return (await import(pathToFileURL(resolve('packages/client', manifest.exports['.'].import)).href)) as ClientModule;
}

/** Starts `nocturne serve` on a free port and resolves with its URL once it says it listens. */
function startServe(): Promise<string> {
  serve = spawn(process.execPath, ['bin/nocturne.mjs', 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  return new Promise((done, fail) => {
    serve.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const url = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(said)?.[1];
      if (url) done(url);
    });
    serve.once('exit', (code) => fail(new Error(`nocturne serve exited ${code}: ${said}`)));
  });
}

beforeAll(async () => {
  const db = await openDb(config.database, { dimension: config.embedding.dimension, schema });
  try {
    const [embedding] = await (await createEmbedder(config.embedding)).embed([note.claim]);
    await applyNoteBatch(db, {
      tenantId,
      runId: 'run-pkg',
      batchNo: 0,
      actor: 'test',
      ops: [{ ...createOp(note.noteId, { claim: note.claim }), embedding: embedding! }],
    });
  } finally {
    await db.close();
  }
  [pkg, baseUrl] = await Promise.all([importBuiltPackage(), startServe()]);
}, 180_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((r) => serve.once('exit', r));
    serve.kill('SIGTERM');
    await exited;
  }
  await dropSchema(schema);
});

describe('the built client package against nocturne serve', () => {
  it('recalls, appends a conversation, gives feedback and reads the note', async () => {
    const client = pkg.createNocturneClient({ baseUrl, token });
    const recalled = await client.recall({ query: 'when are invoices sent', include: ['notes'], taskId: 'pkg-task' });
    expect(recalled.notes.map((n) => n.noteId)).toEqual([note.noteId]);
    const appended = await client.appendMessages({
      sessionId: 'pkg-session',
      agentId: 'pkg-agent',
      messages: [{ role: 'user', content: 'When do invoices go out?' }],
    });
    expect(appended).toMatchObject({ tenantId, accepted: 1, rejected: [] });
    const fb = await client.feedback({ noteId: note.noteId, verdict: 'helped', taskId: 'pkg-task' });
    expect(fb).toMatchObject({ noteId: note.noteId, verdict: 'helped' });
    expect((await client.getNote(note.noteId)).note.claim).toBe(note.claim);
    expect((await client.noteHistory(note.noteId)).versions).toHaveLength(1);
  });

  it('reports a conflict through the server, which connects to Temporal on first use', async () => {
    const client = pkg.createNocturneClient({ baseUrl, token });
    const sent = await client.reportConflict({ noteIds: [note.noteId], reason: 'sent on the 5th this month' });
    expect(sent.workflowId).toBe(`conflicts/${tenantId}`);
    const connection = await Connection.connect({ address: config.temporal.address });
    try {
      const handle = new Client({ connection }).workflow.getHandle(sent.workflowId, sent.runId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test over');
    } finally {
      await connection.close();
    }
  });

  it('fails with a typed error carrying the server’s reason', async () => {
    const client = pkg.createNocturneClient({ baseUrl, token: `${token}-wrong` });
    const error = await client.getNote(note.noteId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(pkg.NocturneApiError);
    expect(error).toMatchObject({ status: 401, reason: 'unknown bearer token' });
  });
});
