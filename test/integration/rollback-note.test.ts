import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import type { RollbackResult } from '../../activities/rollback.ts';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';
import { openArchive, writeBatch, type ArchiveStore } from '../../src/archive/index.ts';
import type { NoteContent } from '../../src/contracts/note.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import type { ReplayBatchInput } from '../../src/consolidation/replay-batch.ts';
import {
  applyNoteBatch,
  getNote,
  getRun,
  listNotes,
  openDb,
  selectRunBatch,
  withTenant,
  type Db,
} from '../../src/db/index.ts';
import { createDeterministicEngine } from '../../src/engine/deterministic.ts';
import { rollbackNote } from '../../src/rollback/note.ts';
import { expectHeadPublished } from '../helpers/audit-heads.ts';
import { openEmbedder } from '../../src/runtime.ts';
import { demoRecords } from '../../tools/demo/sample.ts';
import { createOp } from '../helpers/notes.ts';
import { dropSchema, pipelineConfig } from '../helpers/pipeline.ts';
import { workflowBundle, workflowFailure } from '../helpers/temporal.ts';

// Every path of a note rollback and of a consolidation that meets one, on the real stack: the
// Temporal dev server running the real workflows and activities, PostgreSQL + pgvector (a schema
// of its own), SeaweedFS and the embedding server. The worker's replayBatch can be made to let a
// rollback land between a batch's replay and its commit, as an operator's would.

const { config, schema } = pipelineConfig('rbn');
const taskQueue = config.temporal.taskQueue;

let db: Db;
let archive: ArchiveStore;
let client: Client;
let closeAll: () => Promise<void>;
/** Runs after each real replay of a first plan while set: the rollback that lands before the commit. */
let interfere: ((input: ReplayBatchInput) => Promise<void>) | undefined;

beforeAll(async () => {
  db = await openDb(config.database, { dimension: config.embedding.dimension, schema });
  archive = openArchive(config.archive);
  const embedder = await openEmbedder(config, { log: () => {} });
  const real = createActivities({ archive, db, embedder, engine: createDeterministicEngine(), newId: () => ulid() });
  const activities = {
    ...real,
    replayBatch: async (input: ReplayBatchInput) => {
      const replayed = await real.replayBatch(input);
      await interfere?.(input);
      return replayed;
    },
  };
  const native = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection: native,
    taskQueue,
    namespace: config.temporal.namespace,
    workflowBundle: await workflowBundle(),
    activities,
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection, namespace: config.temporal.namespace });
  closeAll = async () => {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    await db.close();
    await archive.close();
    await dropSchema(schema);
  };
});
afterAll(async () => closeAll?.());

const tag = () => randomBytes(3).toString('hex');
const rollback = (input: Record<string, unknown>, workflowId = `rollback-note/it-${tag()}`) =>
  client.workflow.execute('rollbackNoteWorkflow', { taskQueue, workflowId, args: [input] }) as Promise<RollbackResult>;

const CENTS: Partial<NoteContent> = { kind: 'fact', claim: 'The billing API returns amounts in cents.' };
const DOLLARS: Partial<NoteContent> = {
  kind: 'fact',
  claim: 'The billing API returns amounts already in dollars, not in cents.',
};

/** A good note superseded by a bad new one, as a consolidation run writes them. */
async function supersededPair(tenantId: string, bad: Partial<NoteContent> = DOLLARS) {
  const good = ulid();
  const newer = ulid();
  const seed = { tenantId, runId: `seed-${tag()}`, actor: 'consolidate/it' };
  await applyNoteBatch(db, { ...seed, batchNo: 0, ops: [createOp(good, CENTS)] });
  await applyNoteBatch(db, {
    ...seed,
    batchNo: 1,
    ops: [
      createOp(newer, bad),
      { op: 'newVersion', action: 'supersede', noteId: good, expectedVersion: 1, supersededBy: newer, reason: 'x' },
    ],
  });
  return { good, newer };
}

async function active(tenantId: string): Promise<string[]> {
  return (await listNotes(db, { tenantId, status: 'active', limit: 100 })).notes.map((n) => n.noteId).sort();
}

async function embedded(tenantId: string, noteId: string): Promise<boolean> {
  const note = await getNote(db, { tenantId, noteId });
  const { rows } = await withTenant(db, tenantId, (tx) =>
    tx.query('SELECT embedding IS NOT NULL AS has FROM note_versions WHERE note_id = $1 AND version = $2', [
      noteId,
      note?.version,
    ]),
  );
  return (rows[0] as { has: boolean } | undefined)?.has === true;
}

const base = (tenantId: string, noteId: string) => ({ tenantId, noteId, reason: 'wrong', operator: 'it-operator' });

describe('rollbackNoteWorkflow on the real stack', () => {
  it('retires a version-1 note from one JSON input (toVersion 0), restores what it superseded and reindexes it', async () => {
    const tenantId = `rbn-retire-${tag()}`;
    const { good, newer } = await supersededPair(tenantId);
    const r = await rollback({ ...base(tenantId, newer), toVersion: 0 });
    expect(r.changes.map((c) => [c.noteId, c.action])).toEqual([
      [newer, 'retire'],
      [good, 'rollback'],
    ]);
    expect((await getNote(db, { tenantId, noteId: newer }))?.status).toBe('retired');
    expect(await active(tenantId)).toEqual([good]);
    expect(await embedded(tenantId, good)).toBe(true);
    // Its audit entries are anchored: the chain head it reached is published in the archive.
    await expectHeadPublished({ db, archive }, tenantId);
  });

  it('rolls a revised note back to a named version', async () => {
    const tenantId = `rbn-version-${tag()}`;
    const noteId = ulid();
    const seed = { tenantId, runId: `seed-${tag()}`, actor: 'consolidate/it' };
    await applyNoteBatch(db, { ...seed, batchNo: 0, ops: [createOp(noteId, CENTS)] });
    const revise = { claim: 'The billing API returns amounts in euros.' };
    await applyNoteBatch(db, {
      ...seed,
      batchNo: 1,
      ops: [{ op: 'newVersion', action: 'revise', noteId, expectedVersion: 1, changes: revise, reason: 'r' }],
    });
    const r = await rollback({ ...base(tenantId, noteId), toVersion: 1 });
    expect(r.changes).toEqual([{ noteId, action: 'rollback', fromVersion: 2, toVersion: 3 }]);
    expect((await getNote(db, { tenantId, noteId }))?.claim).toBe(CENTS.claim);
    expect(await embedded(tenantId, noteId)).toBe(true);
  });

  it('reviving a superseded note retires its successor by default (the other cascade direction)', async () => {
    const tenantId = `rbn-successor-${tag()}`;
    const { good, newer } = await supersededPair(tenantId);
    const r = await rollback(base(tenantId, good));
    expect(r.changes.map((c) => [c.noteId, c.action])).toEqual([
      [good, 'rollback'],
      [newer, 'retire'],
    ]);
    expect(await active(tenantId)).toEqual([good]);
  });

  it('successor keep: kept when compatible, refused (nothing written) when the two would contradict', async () => {
    const tenantId = `rbn-keep-${tag()}`;
    const compatible = await supersededPair(tenantId, {
      kind: 'tool_behavior',
      claim: 'Exports time out above 10 MB.',
    });
    await rollback({ ...base(tenantId, compatible.good), successor: 'keep' });
    expect(await active(tenantId)).toEqual([compatible.good, compatible.newer].sort());

    const other = `rbn-keep-bad-${tag()}`;
    const pair = await supersededPair(other);
    const failure = await workflowFailure(rollback({ ...base(other, pair.good), successor: 'keep' }));
    expect((failure.cause as { type?: string }).type).toBe('RollbackWouldContradict');
    expect(await active(other)).toEqual([pair.newer]);
  });

  it('a retried rollback whose first attempt committed reports what it did, and reindexes', async () => {
    const tenantId = `rbn-retry-${tag()}`;
    const { good, newer } = await supersededPair(tenantId);
    const workflowId = `rollback-note/it-retry-${tag()}`;
    const first = await rollback({ ...base(tenantId, newer), action: 'retire' }, workflowId);
    // The same request again (same workflow id, so the same batch key): as a retried attempt sees it.
    const again = await rollback({ ...base(tenantId, newer), action: 'retire' }, workflowId);
    expect(again).toMatchObject({ noop: false, retried: true, changes: first.changes });
    expect(await active(tenantId)).toEqual([good]);
    expect(await embedded(tenantId, good)).toBe(true);
  });
});

describe('a consolidation that meets a rollback', () => {
  const asTenant = (tenantId: string, records: RawRecordInput[]) => records.map((r) => ({ ...r, tenantId }));
  const acme = () => demoRecords().filter((r) => r.tenantId === 'acme');
  const DAY2 = '2026-11-04';
  const consolidate = (tenantId: string) =>
    client.workflow.execute('consolidateTenantWorkflow', {
      taskQueue,
      workflowId: `consolidate/${tenantId}/it-${tag()}`,
      args: [{ tenantId, trigger: 'manual', seed: 3 }],
    }) as Promise<ConsolidateResult>;

  /** Run 1 learns from the first days; run 2's batch will change notes run 1 wrote. */
  async function secondDayPending(tenantId: string): Promise<void> {
    const early = acme().filter((r) => r.observedAt < DAY2);
    await writeBatch(archive, { tenantId, producer: 'it', records: asTenant(tenantId, early) });
    await consolidate(tenantId);
    const late = acme().filter((r) => r.observedAt >= DAY2);
    await writeBatch(archive, { tenantId, producer: 'it', records: asTenant(tenantId, late) });
  }

  /** Retires, as an operator would, one note the batch just planned to change. */
  const retireTouched = (tenantId: string) => async (input: ReplayBatchInput) => {
    const stored = await withTenant(db, tenantId, (tx) => selectRunBatch(tx, input));
    const touched = (stored?.ops ?? []).find((o) => (o as { op: string }).op === 'newVersion') as
      { noteId: string } | undefined;
    if (!touched) return;
    await rollbackNote(
      { db },
      { ...base(tenantId, touched.noteId), action: 'retire', requestId: `rollback-note/it-${tag()}` },
    );
  };

  it('plans the batch again once and completes, leaving the rollback in place', async () => {
    const tenantId = `rbn-replan-${tag()}`;
    await secondDayPending(tenantId);
    const retired: string[] = [];
    const retire = retireTouched(tenantId);
    interfere = async (input) => {
      if (input.replan || retired.length > 0) return;
      await retire(input);
      retired.push('done');
    };
    try {
      const run = await consolidate(tenantId);
      expect(run.status).toBe('completed');
      expect(run.changedVersions.length).toBeGreaterThan(0);
      expect((await getRun(db, { tenantId, runId: run.runId }))?.status).toBe('completed');
      expect(retired).toEqual(['done']);
    } finally {
      interfere = undefined;
    }
    const retiredNotes = (await listNotes(db, { tenantId, status: 'retired', limit: 100 })).notes;
    expect(retiredNotes.length).toBeGreaterThan(0);
  });

  it('a failing run ends its run row failed (not running)', async () => {
    const tenantId = `rbn-failed-${tag()}`;
    await secondDayPending(tenantId);
    interfere = async () => {
      throw ApplicationFailure.nonRetryable('manifest unreadable', 'ArchiveManifestInvalid');
    };
    const workflowId = `consolidate/${tenantId}/it-${tag()}`;
    try {
      const failure = await workflowFailure(
        client.workflow.execute('consolidateTenantWorkflow', {
          taskQueue,
          workflowId,
          args: [{ tenantId, trigger: 'manual', seed: 3 }],
        }),
      );
      expect((failure.cause as { type?: string }).type).toBe('ArchiveManifestInvalid');
    } finally {
      interfere = undefined;
    }
    const described = await client.workflow.getHandle(workflowId).describe();
    expect(described.searchAttributes['NocturneStatus']).toEqual(['failed']);
    const runId = `${workflowId}/${described.runId}`;
    expect((await getRun(db, { tenantId, runId }))?.status).toBe('failed');
  });
});
