import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { listen, type RunningServer } from '../../src/api/server.ts';
import { writeBatch } from '../../src/archive/index.ts';
import { getNote, getNoteHistory, insertMemoryUsage, listNotes, verifyAuditChain } from '../../src/db/index.ts';
import { createHashingEmbedder } from '../../src/embeddings/hashing.ts';
import { createInspectorApp, temporalRollbackLauncher } from '../../src/inspector/index.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { pipelineConfig, startPipeline, type Pipeline } from '../helpers/pipeline.ts';

// The note inspector in a real browser (Debian's Chromium driven by Playwright) against the real
// stack: records in S3, a consolidation and a rollback run by Temporal and the real worker, notes
// in PostgreSQL. The screenshots it takes are the README's operator walk-through (docs/images/).

const CHROMIUM = process.env['NOCTURNE_CHROMIUM'] ?? '/usr/bin/chromium';
const IMAGES = new URL('../../docs/images/', import.meta.url);
const { config, schema } = pipelineConfig('insp');
const tenantId = `shop-${randomBytes(3).toString('hex')}`;
const OPERATOR = 'ada';
const operatorToken = `op-${randomBytes(16).toString('hex')}`;
const tenantToken = `tenant-${randomBytes(16).toString('hex')}`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let pipeline: Pipeline;
let server: RunningServer;
let browser: Browser;
let page: Page;
/** The note the demo's run superseded: "…amounts in cents", replaced by "…already in dollars". */
let noteId: string;
let claim: string;

const shot = (name: string) => page.screenshot({ path: new URL(name, IMAGES).pathname, fullPage: true });

beforeAll(async () => {
  pipeline = await startPipeline(config, schema);
  const records = demoRecords()
    .filter((r) => r.tenantId === 'acme')
    .map((r) => ({ ...r, tenantId }));
  await writeBatch(pipeline.archive, { tenantId, producer: 'it', records });
  await pipeline.client.workflow.execute('consolidateTenantWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: `consolidate/${tenantId}/inspector`,
    args: [{ tenantId, trigger: 'manual', seed: 1 }],
  });
  const superseded = (await listNotes(pipeline.db, { tenantId, status: 'superseded', limit: 100 })).notes;
  const cents = superseded.find((n) => /cents/i.test(n.claim));
  if (!cents) throw new Error(`the run superseded no "cents" note: ${superseded.map((n) => n.claim).join(' | ')}`);
  ({ noteId, claim } = cents);
  // The recall that gave the note to a task before the run replaced it, as recall logs it.
  await insertMemoryUsage(pipeline.db, {
    tenantId,
    rows: [{ taskId: 'ticket-1817', noteId, version: 1, rank: 1, score: 0.91, at: new Date().toISOString() }],
  });
  const app = createApiApp({
    db: pipeline.db,
    embedder: createHashingEmbedder(config.embedding.dimension),
    tokens: [{ tenantId, sha256: sha(tenantToken) }],
    inspector: createInspectorApp({
      db: pipeline.db,
      archive: pipeline.archive,
      operators: [{ operator: OPERATOR, sha256: sha(operatorToken) }],
      tenants: [tenantId],
      rollbacks: temporalRollbackLauncher({
        client: async () => pipeline.client,
        taskQueue: config.temporal.taskQueue,
      }),
    }),
  });
  server = await listen(app, { port: 0 });
  await mkdir(IMAGES, { recursive: true });
  // Headless; as root Chromium's sandbox cannot start, so it runs without it there.
  const asRoot = process.getuid?.() === 0;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: asRoot ? ['--no-sandbox'] : [] });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await pipeline?.close();
});

describe('note inspector in a browser', () => {
  it('refuses a tenant read token, as a bearer and at the login form', async () => {
    const asBearer = await fetch(`${server.url}/inspector`, { headers: { authorization: `Bearer ${tenantToken}` } });
    expect(asBearer.status).toBe(401);
    await page.goto(`${server.url}/inspector`);
    await page.fill('input[name=token]', tenantToken);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('#login-error')).toContain('not an operator token');
  });

  it('finds the note by its text, opens its evidence, rolls it back with the button and shows the new version', async () => {
    await page.goto(`${server.url}/inspector`);
    await page.fill('input[name=token]', operatorToken);
    await page.click('button[type=submit]');
    await page.waitForSelector('#operator');
    expect(await page.textContent('#operator')).toBe(OPERATOR);

    await page.fill('input[name=tenant]', tenantId);
    await page.fill('input[name=text]', 'amounts');
    await page.click('#search button[type=submit]');
    await page.waitForSelector('#results');
    // The active note behind the answer and the one it superseded, both found by the same words.
    expect(await page.locator('#results tbody tr').count()).toBeGreaterThanOrEqual(2);
    expect(await page.textContent('#results')).toContain('superseded');
    await shot('inspector-1-search.png');
    await page.click(`#results a:has-text(${JSON.stringify(claim)})`);
    await page.waitForSelector('#claim');
    expect(await page.textContent('#claim')).toBe(claim);
    expect(await page.textContent('#current-version')).toBe('2');
    expect(await page.textContent('#chain')).toContain("the tenant's chain verifies");
    expect(await page.textContent('#usage')).toContain('ticket-1817');
    await shot('inspector-2-note.png');

    await page.click('#open-evidence');
    await page.waitForSelector('#evidence-summary');
    const summary = (await page.textContent('#evidence-summary')) ?? '';
    const [, ok, cited] = /(\d+) of (\d+) cited records/.exec(summary) ?? [];
    expect(Number(cited)).toBeGreaterThan(0);
    expect(ok).toBe(cited);
    expect(await page.locator('.evidence[data-check=ok] pre.record').count()).toBe(Number(cited));
    await shot('inspector-3-evidence.png');

    await page.goBack();
    await page.fill('input[aria-label="reason for v1"]', 'amounts are in dollars only for API v2 calls');
    await page.click('#rollback-v1');
    await page.waitForSelector('#outcome');
    expect(await page.textContent('#outcome .badge')).toBe('completed');
    const workflowId = (await page.textContent('#workflow-id')) ?? '';
    expect(workflowId).toMatch(new RegExp(`^rollback-note/${tenantId}/${noteId}/`));
    expect(await page.textContent('#current-version')).toBe('3');
    expect(await page.textContent('#note .badge')).toBe('active');
    expect(await page.textContent('#outcome')).toContain('v2 → v3');
    await shot('inspector-4-rolled-back.png');

    // The store agrees, and the audit names the operator of the token.
    expect((await getNote(pipeline.db, { tenantId, noteId }))?.version).toBe(3);
    const { audit } = await getNoteHistory(pipeline.db, { tenantId, noteId });
    expect(audit.at(-1)).toMatchObject({ action: 'rollback', actor: OPERATOR, toVersion: 3 });
    expect((await verifyAuditChain(pipeline.db, tenantId)).ok).toBe(true);
  });
});
