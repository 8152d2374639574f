import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { openArchive, writeBatch } from '../../src/archive/index.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import { getNoteHistory, listNotes, verifyAuditChain, withTenant, type Db } from '../../src/db/index.ts';
import { STACK, stackEnv } from '../../src/stack/endpoints.ts';
import { createWorker, type WorkerHandle } from '../../src/worker.ts';
import { scaledRecords } from '../../tools/demo/sample.ts';
import { startFaultProxy, type Fault, type FaultProxy, type FaultStats } from '../helpers/fault-proxy.ts';

// Guarantee (docs/ARCHITECTURE.md, "Guarantees and the tests that hold them"): a consolidation
// run whose PostgreSQL or S3 connections misbehave — resets, latency, a partition, S3 503
// SlowDown — completes with the same notes as an undisturbed run: no lost or duplicated version,
// one audit entry per version, a chain that verifies. The worker reaches both servers only
// through loopback proxies that inject the faults from a seeded generator; each trial is one
// tenant's run, and a fault kind's trials run at once, so they share the faulty connections.
// NOCTURNE_FAULT_TRIALS and NOCTURNE_FAULT_SEED replay or widen the suite.
//
// The embedder is the named lexical fallback: this suite is about the note store and the
// archive, and twenty tenants' raw-record index on the one-thread model server would take
// minutes per fault kind without testing anything more.

const TRIALS = Number(process.env['NOCTURNE_FAULT_TRIALS'] ?? 20);
const SEED = Number(process.env['NOCTURNE_FAULT_SEED'] ?? 1);

const FAULTS: Array<{ name: string; server: 'pg' | 's3'; fault: Fault; injected: keyof FaultStats }> = [
  { name: 'PostgreSQL connection resets', server: 'pg', fault: { kind: 'reset', p: 0.004 }, injected: 'resets' },
  {
    name: 'PostgreSQL latency',
    server: 'pg',
    fault: { kind: 'latency', minMs: 2, maxMs: 30 },
    injected: 'delayedChunks',
  },
  {
    name: 'PostgreSQL partition',
    server: 'pg',
    fault: { kind: 'blackhole', p: 0.002, ms: 2_000 },
    injected: 'blackholed',
  },
  { name: 'S3 connection resets', server: 's3', fault: { kind: 'reset', p: 0.02 }, injected: 'resets' },
  { name: 'S3 latency', server: 's3', fault: { kind: 'latency', minMs: 5, maxMs: 80 }, injected: 'delayedChunks' },
  { name: 'S3 503 SlowDown', server: 's3', fault: { kind: 'http503', p: 0.2 }, injected: 'slowDowns' },
  { name: 'S3 partition', server: 's3', fault: { kind: 'blackhole', p: 0.05, ms: 2_000 }, injected: 'blackholed' },
];

const suffix = randomBytes(3).toString('hex');
const direct = parseConfig({ ...stackEnv(), NOCTURNE_ARCHIVE_URI: `s3://nocturne/faults-${suffix}` });
const tenant = (name: string) => `faults-${suffix}-${name}`;

let db: Db;
let client: Client;
let connection: Connection;
let proxies: { pg: FaultProxy; s3: FaultProxy };
let worker: WorkerHandle;
let running: Promise<void>;
let config: Config;

async function archiveFor(tenantId: string): Promise<void> {
  const archive = openArchive(direct.archive);
  try {
    await writeBatch(archive, { tenantId, producer: 'faults', records: scaledRecords({ tenantId, copies: 2 }) });
  } finally {
    await archive.close();
  }
}

async function consolidate(tenantId: string): Promise<ConsolidateResult> {
  const handle = await client.workflow.start('consolidateTenantWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: `consolidate/${tenantId}/faults`,
    args: [{ tenantId, trigger: 'manual', seed: 5, budget: { maxEpisodes: 1000, maxNoteChanges: 1000 } }],
  });
  return (await handle.result()) as ConsolidateResult;
}

/** What recall would see, independent of generated note ids. */
async function outcome(tenantId: string): Promise<string[]> {
  const notes = (await listNotes(db, { tenantId, limit: 1000 })).notes;
  return notes.map((n) => `${n.status}|v${n.version}|n${n.sourceCount}|${n.claim}`).sort();
}

/** Versions numbered 1..n with exactly one audit entry each, and the tenant's chain intact. */
async function expectIntactHistory(tenantId: string): Promise<void> {
  for (const n of (await listNotes(db, { tenantId, limit: 1000 })).notes) {
    const h = await getNoteHistory(db, { tenantId, noteId: n.noteId });
    expect(h.versions.map((v) => v.version)).toEqual(h.versions.map((_, i) => i + 1));
    expect(h.audit.map((a) => a.toVersion)).toEqual(h.versions.map((v) => v.version));
  }
  expect(await verifyAuditChain(db, tenantId)).toMatchObject({ ok: true });
}

beforeAll(async () => {
  // Opened as the worker opens it: with the audit key its keyed entries are verified with.
  db = await openNoteStore(direct);
  proxies = {
    pg: await startFaultProxy({ host: STACK.host, port: STACK.postgres.port }, SEED),
    s3: await startFaultProxy({ host: STACK.host, port: STACK.s3.port }, SEED + 1),
  };
  config = parseConfig({
    ...stackEnv(),
    DATABASE_URL: stackEnv()['DATABASE_URL']?.replace(`:${STACK.postgres.port}/`, `:${proxies.pg.port}/`),
    S3_ENDPOINT: `http://${proxies.s3.address}`,
    NOCTURNE_ARCHIVE_URI: direct.archive.uri,
    NOCTURNE_TASK_QUEUE: `faults-${suffix}`,
    NOCTURNE_EMBEDDING_PROVIDER: 'lexical',
  });
  worker = await createWorker(config, { log: () => {}, embeddingFallback: 'lexical' });
  running = worker.run();
  connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection });
}, 180_000);

afterAll(async () => {
  worker?.worker.shutdown();
  await running;
  await connection?.close();
  await proxies?.pg.close();
  await proxies?.s3.close();
  await db?.close();
});

let reference: string[];

describe(`consolidation through faulty PostgreSQL and S3 connections (${TRIALS} trials per fault, seed ${SEED})`, () => {
  it('reference run through the proxies, with no fault, completes', { timeout: 180_000 }, async () => {
    await archiveFor(tenant('ref'));
    const result = await consolidate(tenant('ref'));
    expect(result.status).toBe('completed');
    reference = await outcome(tenant('ref'));
    expect(reference.length).toBeGreaterThan(3);
  });

  for (const [index, { name, server, fault, injected }] of FAULTS.entries()) {
    it(
      `${name}: every run completes with the reference's notes and an intact history`,
      { timeout: 600_000 },
      async () => {
        const tenants = Array.from({ length: TRIALS }, (_, t) => tenant(`f${index}-t${t + 1}`));
        await Promise.all(tenants.map(archiveFor));
        const before = proxies[server].stats[injected];
        proxies[server].setFault(fault);
        let results: ConsolidateResult[];
        try {
          results = await Promise.all(tenants.map(consolidate));
        } finally {
          proxies[server].setFault({ kind: 'none' });
        }
        // The fault really happened: a suite that injects nothing proves nothing.
        expect(proxies[server].stats[injected] - before).toBeGreaterThan(0);
        expect(results.map((r) => r.status)).toEqual(tenants.map(() => 'completed'));
        for (const tenantId of tenants) {
          expect(await outcome(tenantId)).toEqual(reference);
          await expectIntactHistory(tenantId);
        }
      },
    );
  }
});

describe('an archive object that vanishes between listing and reading', () => {
  it(
    'the run completes with the notes of the objects that remain and reports the missing one',
    { timeout: 300_000 },
    async () => {
      const tenantId = tenant('vanished');
      await archiveFor(tenantId);
      const archive = openArchive(direct.archive);
      try {
        const late = scaledRecords({ tenantId, copies: 1, seed: 23, start: new Date('2026-11-20T00:00:00Z') });
        await writeBatch(archive, { tenantId, producer: 'late', records: late });
      } finally {
        await archive.close();
      }
      proxies.s3.setFault({ kind: 'vanished', path: new RegExp(`tenant=${tenantId}/.*late[^ ?]*\\.jsonl\\.gz[ ?]`) });
      let result: ConsolidateResult;
      try {
        result = await consolidate(tenantId);
      } finally {
        proxies.s3.setFault({ kind: 'none' });
      }
      expect(proxies.s3.stats.notFound).toBeGreaterThan(0);
      expect(result.status).toBe('completed');
      // The vanished object held the later copy; what remains is the reference's archive.
      expect(await outcome(tenantId)).toEqual(reference);
      await expectIntactHistory(tenantId);
      const batches = await withTenant(db, tenantId, (tx) =>
        tx.query(`SELECT summary FROM run_batches WHERE tenant_id = $1`, [tenantId]),
      );
      const missing = batches.rows.map(
        (r) => (r as { summary: { objectsMissing?: number } }).summary.objectsMissing ?? 0,
      );
      expect(missing.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    },
  );
});
