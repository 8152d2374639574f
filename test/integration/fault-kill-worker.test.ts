import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { seededRandom } from '../../policies/random.ts';
import { openArchive, writeBatch } from '../../src/archive/index.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { parseConfig } from '../../src/config.ts';
import { getNoteHistory, listNotes, verifyAuditChain, type Db } from '../../src/db/index.ts';
import { scaledRecords } from '../../tools/demo/sample.ts';
import { stackEnv } from '../../src/stack/endpoints.ts';

// Guarantee (docs/ARCHITECTURE.md, "Guarantees and the tests that hold them"): no lost or
// duplicated note version or audit entry when a worker is killed at any point. Each trial kills
// a real worker process with SIGKILL at a seeded moment of a multi-batch run (inside replay,
// commit or reindex), starts a new one, and compares the outcome with an undisturbed reference
// run over the same records.

const TRIALS = 10;
const suffix = randomBytes(3).toString('hex');
const env = {
  ...process.env,
  ...stackEnv(),
  NOCTURNE_ARCHIVE_URI: `s3://nocturne/fault-${suffix}`,
  NOCTURNE_TASK_QUEUE: `fault-${suffix}`,
};
const config = parseConfig(env);
const tenant = (name: string) => `fault-${suffix}-${name}`;

let db: Db;
let client: Client;
let connection: Connection;
let worker: ChildProcess | undefined;

function startWorker(): ChildProcess {
  mkdirSync('var/log', { recursive: true });
  const log = openSync(`var/log/fault-worker-${suffix}.log`, 'a');
  const child = spawn(process.execPath, ['bin/nocturne.mjs', 'worker'], { env, stdio: ['ignore', log, log] });
  worker = child;
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function archiveFor(tenantId: string): Promise<void> {
  const archive = openArchive(config.archive);
  try {
    await writeBatch(archive, { tenantId, producer: 'fault', records: scaledRecords({ tenantId, copies: 24 }) });
  } finally {
    await archive.close();
  }
}

// 192 episodes; a change budget of 400 replays them in two batches of 100.
const run = (tenantId: string) =>
  client.workflow.start('consolidateTenantWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: `consolidate/${tenantId}/fault`,
    args: [{ tenantId, trigger: 'manual', seed: 5, budget: { maxEpisodes: 1000, maxNoteChanges: 400 } }],
  });

/** What recall would see, independent of generated note ids. */
async function outcome(tenantId: string): Promise<string[]> {
  const notes = (await listNotes(db, { tenantId, limit: 1000 })).notes;
  return notes.map((n) => `${n.status}|v${n.version}|n${n.sourceCount}|${n.claim}`).sort();
}

beforeAll(async () => {
  // Opened as the worker opens it: with the audit key its keyed entries are verified with.
  db = await openNoteStore(config);
  connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection });
});

afterAll(async () => {
  if (worker) await kill(worker);
  await connection?.close();
  await db?.close();
});

describe(`a worker killed with SIGKILL at ${TRIALS} seeded points`, () => {
  let reference: string[];

  it('reference run completes undisturbed', { timeout: 180_000 }, async () => {
    await archiveFor(tenant('ref'));
    const w = startWorker();
    const result = (await (await run(tenant('ref'))).result()) as ConsolidateResult;
    await kill(w);
    expect(result.status).toBe('completed');
    reference = await outcome(tenant('ref'));
    expect(reference.length).toBeGreaterThan(3);
  });

  for (let trial = 1; trial <= TRIALS; trial++) {
    it(
      `trial ${trial}: the run completes after restart with no duplicated version and one audit entry per version`,
      { timeout: 240_000 },
      async () => {
        const tenantId = tenant(`t${trial}`);
        await archiveFor(tenantId);
        const first = startWorker();
        const handle = await run(tenantId);
        // Worker start (bundling) takes a few seconds; the run then takes several more.
        const delay = 4_000 + Math.floor(seededRandom(trial)() * 8_000);
        await new Promise((r) => setTimeout(r, delay));
        await kill(first);
        startWorker();
        const result = (await handle.result()) as ConsolidateResult;
        expect(result.status).toBe('completed');
        expect(await outcome(tenantId)).toEqual(reference);
        for (const n of (await listNotes(db, { tenantId, limit: 1000 })).notes) {
          const h = await getNoteHistory(db, { tenantId, noteId: n.noteId });
          expect(h.versions.map((v) => v.version)).toEqual(h.versions.map((_, i) => i + 1));
          expect(h.audit.map((a) => a.toVersion)).toEqual(h.versions.map((v) => v.version));
        }
        expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
        await kill(worker as ChildProcess);
      },
    );
  }
});
