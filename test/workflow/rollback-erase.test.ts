import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationActivities } from '../../activities/index.ts';
import type { ErasureScan } from '../../activities/erasure.ts';
import { eraseSubjectWorkflow } from '../../workflows/erase-subject.ts';
import { rollbackNoteWorkflow } from '../../workflows/rollback-note.ts';
import { rollbackRunWorkflow } from '../../workflows/rollback-run.ts';
import {
  maybeRecordHistory,
  temporalClient,
  uniqueId,
  withWorker,
  workflowFailure as failure,
} from '../helpers/temporal.ts';

// Rollback and erasure workflows on the real dev server with fake activities: input checks,
// the order of activities, what is skipped on a no-op, and how an incomplete erasure fails.

type Calls = Array<{ name: string; input: unknown }>;

const CLEAN: ErasureScan = { clean: true, archiveObjectsScanned: 4, archive: [], database: [] };

function fakes(
  calls: Calls,
  opts: { noop?: boolean; scan?: ErasureScan; objects?: number } = {},
): Partial<ConsolidationActivities> {
  const rec =
    <T>(name: string, result: T) =>
    async (input: unknown) => {
      calls.push({ name, input });
      return result;
    };
  const changes = opts.noop ? [] : [{ noteId: 'N1', action: 'rollback', fromVersion: 2, toVersion: 3 }];
  return {
    rollbackNote: rec('rollbackNote', { noop: opts.noop ?? false, changes }),
    rollbackRun: rec('rollbackRun', { runId: 'r', tenantId: 'acme', noop: opts.noop ?? false, changes, skipped: [] }),
    reindexBatch: rec('reindexBatch', { embedded: 1, embedder: 'fake' }),
    prepareErasure: rec('prepareErasure', {
      objectKeys: Array.from({ length: opts.objects ?? 3 }, (_, i) => `k${i}`),
      records: 5,
      needles: 2,
    }),
    eraseSubjectNotes: rec('eraseSubjectNotes', { erased: ['N1'], revalidated: ['N2'] }),
    eraseArchiveObjects: rec('eraseArchiveObjects', { rewritten: 1, deleted: 0, recordsRemoved: 2, notesRepointed: 1 }),
    scrubSubjectData: rec('scrubSubjectData', {
      versionsScrubbed: 2,
      embeddingsRemoved: 2,
      usageRowsDeleted: 1,
      runWorkRowsDeleted: 0,
      auditEntriesRedacted: 1,
      auditEntriesRelinked: 3,
    }),
    verifyErasure: rec('verifyErasure', opts.scan ?? CLEAN),
    finishErasure: rec('finishErasure', { workRowsDeleted: 7 }),
    releaseErasureLease: rec('releaseErasureLease', { released: true }),
    releaseTenantOperation: rec('releaseTenantOperation', { released: true }),
  } as unknown as Partial<ConsolidationActivities>;
}

let client: Client;
let close: () => Promise<void>;
beforeAll(async () => ({ client, close } = await temporalClient()));
afterAll(async () => close?.());

describe('invalid input fails at once, non-retryably, naming the field', () => {
  const cases: Array<[string, (taskQueue: string) => Promise<unknown>, RegExp]> = [
    [
      'rollbackRunWorkflow without runId',
      (tq) =>
        client.workflow.execute(rollbackRunWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('rr-bad'),
          args: [{ reason: 'x', operator: 'o' } as never],
        }),
      /runId/,
    ],
    [
      'rollbackRunWorkflow whose run id names no tenant',
      (tq) =>
        client.workflow.execute(rollbackRunWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('rr-bad'),
          args: [{ runId: 'r-1', reason: 'x', operator: 'o' }],
        }),
      /tenantId: required/,
    ],
    [
      'rollbackRunWorkflow with a tenant other than the run id names',
      (tq) =>
        client.workflow.execute(rollbackRunWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('rr-bad'),
          args: [{ runId: 'consolidate/acme/2026-11-30/x', tenantId: 'globex', reason: 'x', operator: 'o' }],
        }),
      /tenantId: globex does not match/,
    ],
    [
      'rollbackRunWorkflow with an empty reason',
      (tq) =>
        client.workflow.execute(rollbackRunWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('rr-bad'),
          args: [{ runId: 'consolidate/acme/d/x', reason: '', operator: 'o' }],
        }),
      /reason/,
    ],
    [
      'rollbackNoteWorkflow with toVersion -1',
      (tq) =>
        client.workflow.execute(rollbackNoteWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('rn-bad'),
          args: [{ tenantId: 'acme', noteId: 'N', toVersion: -1, reason: 'x', operator: 'o' }],
        }),
      /toVersion/,
    ],
    [
      'eraseSubjectWorkflow without a handle',
      (tq) =>
        client.workflow.execute(eraseSubjectWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('erase-bad'),
          args: [{ tenantId: 'acme' } as never],
        }),
      /handle/,
    ],
    [
      'eraseSubjectWorkflow with a bad tenant',
      (tq) =>
        client.workflow.execute(eraseSubjectWorkflow, {
          taskQueue: tq,
          workflowId: uniqueId('erase-bad'),
          args: [{ tenantId: 'bad tenant!', handle: '0123456789abcdef0123456789abcdef' }],
        }),
      /tenantId/,
    ],
  ];
  it.each(cases)('%s', async (_name, start, field) => {
    const calls: Calls = [];
    await withWorker(fakes(calls), async (taskQueue) => {
      const cause = await failure(start(taskQueue));
      expect(cause.type).toBe('InvalidWorkflowInput');
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(field);
    });
    expect(calls).toEqual([]);
  });
});

describe('rollbackRunWorkflow', () => {
  it('derives the tenant from the run id, rolls back, then reindexes what it wrote', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('rollback-run');
    await withWorker(fakes(calls), async (taskQueue) => {
      const r = await client.workflow.execute(rollbackRunWorkflow, {
        taskQueue,
        workflowId,
        args: [{ runId: 'consolidate/acme/2026-11-30/abc', reason: 'bad run', operator: 'ops' }],
      });
      expect(r.noop).toBe(false);
    });
    // The lease is freed as soon as the notes are restored: re-embedding overlaps everything.
    expect(calls.map((c) => c.name)).toEqual(['rollbackRun', 'releaseTenantOperation', 'reindexBatch']);
    expect(calls[0]?.input).toEqual({
      tenantId: 'acme',
      runId: 'consolidate/acme/2026-11-30/abc',
      reason: 'bad run',
      operator: 'ops',
      requestId: workflowId,
    });
    expect(calls[2]?.input).toEqual({ runId: `rollback-run/${workflowId}`, tenantId: 'acme', batchNo: 0 });
    await maybeRecordHistory(client, workflowId, 'rollback-run');
    await maybeRecordHistory(client, workflowId, 'rollback-run-operation-lease');
  });

  it('does not reindex when the rollback changed nothing', async () => {
    const calls: Calls = [];
    await withWorker(fakes(calls, { noop: true }), (taskQueue) =>
      client.workflow.execute(rollbackRunWorkflow, {
        taskQueue,
        workflowId: uniqueId('rollback-run-noop'),
        args: [{ runId: 'r-1', tenantId: 'acme', reason: 'again', operator: 'ops' }],
      }),
    );
    expect(calls.map((c) => c.name)).toEqual(['rollbackRun', 'releaseTenantOperation']);
  });
});

describe('rollbackNoteWorkflow', () => {
  it('rolls back one note and reindexes', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('rollback-note');
    await withWorker(fakes(calls), (taskQueue) =>
      client.workflow.execute(rollbackNoteWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', noteId: 'N1', toVersion: 1, reason: 'wrong', operator: 'ops' }],
      }),
    );
    expect(calls.map((c) => c.name)).toEqual(['rollbackNote', 'reindexBatch']);
    await maybeRecordHistory(client, workflowId, 'rollback-note');
  });
});

const HANDLE = '0123456789abcdef0123456789abcdef';

describe('eraseSubjectWorkflow', () => {
  it('decides notes before rewriting the archive, pages objects, scrubs, scans, then drops its working set', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('erase');
    const r = await withWorker(fakes(calls, { objects: 30 }), (taskQueue) =>
      client.workflow.execute(eraseSubjectWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', handle: HANDLE }],
      }),
    );
    expect(calls.map((c) => c.name)).toEqual([
      'prepareErasure',
      'eraseSubjectNotes',
      'eraseArchiveObjects',
      'eraseArchiveObjects',
      'scrubSubjectData',
      'verifyErasure',
      'finishErasure',
    ]);
    // Every activity gets the handle, never a user id.
    for (const c of calls) expect(c.input).toMatchObject({ tenantId: 'acme', handle: HANDLE });
    expect((calls[2]?.input as { objectKeys: string[] }).objectKeys).toHaveLength(25);
    expect((calls[3]?.input as { objectKeys: string[] }).objectKeys).toHaveLength(5);
    expect(r.archive).toEqual({
      rewritten: 2,
      deleted: 0,
      recordsRemoved: 4,
      notesRepointed: 2,
      objectsWithSubject: 30,
    });
    expect(r.notes).toEqual({ erased: ['N1'], revalidated: ['N2'] });
    await maybeRecordHistory(client, workflowId, 'erase-subject-handle');
  });

  it('refuses a user id in its input, before any activity runs', async () => {
    const calls: Calls = [];
    await withWorker(fakes(calls), async (taskQueue) => {
      const cause = await failure(
        client.workflow.execute(eraseSubjectWorkflow, {
          taskQueue,
          workflowId: uniqueId('erase-user-id'),
          args: [{ tenantId: 'acme', userId: 'u-alice' }],
        }),
      );
      expect(cause.type).toBe('InvalidWorkflowInput');
      expect(cause.message).toMatch(/handle/);
    });
    expect(calls).toEqual([]);
  });

  it('fails with ErasureIncomplete, non-retryably, when the scan still finds the subject, keeps its working set and frees the tenant', async () => {
    const calls: Calls = [];
    const scan: ErasureScan = {
      clean: false,
      archiveObjectsScanned: 4,
      archive: [{ objectKey: 'raw/tenant=acme/x.jsonl.gz', what: 'user_id' }],
      database: [{ store: 'audit_log', count: 1 }],
    };
    const workflowId = uniqueId('erase-incomplete');
    await withWorker(fakes(calls, { scan }), async (taskQueue) => {
      const cause = await failure(
        client.workflow.execute(eraseSubjectWorkflow, {
          taskQueue,
          workflowId,
          args: [{ tenantId: 'acme', handle: HANDLE }],
        }),
      );
      expect(cause.type).toBe('ErasureIncomplete');
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(/raw\/tenant=acme\/x\.jsonl\.gz \(user_id\).*audit_log \(1 rows\)/);
    });
    expect(calls.map((c) => c.name)).not.toContain('finishErasure');
    expect(calls.at(-1)?.name).toBe('releaseErasureLease');
    await maybeRecordHistory(client, workflowId, 'erase-subject-failed-operation-lease');
  });
});
