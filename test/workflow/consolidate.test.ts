import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationActivities, ReplayBatchResult } from '../../activities/index.ts';
import { consolidateTenantWorkflow } from '../../workflows/consolidate-tenant.ts';
import { approveUpdate, progressQuery } from '../../workflows/consolidate-messages.ts';
import { maybeRecordHistory, temporalClient, uniqueId, withWorker } from '../helpers/temporal.ts';
import type { Client } from '@temporalio/client';

// Workflow logic against the real Temporal dev server with fake activities: the fakes
// record their calls and return what a batch of a given shape would.

type Calls = Array<{ name: string; input: unknown }>;

function fakeActivities(
  opts: { batches: number; changesPerBatch: number },
  calls: Calls,
): Partial<ConsolidationActivities> {
  const rec =
    <T>(name: string, result: T) =>
    async (input: unknown) => {
      calls.push({ name, input });
      return result;
    };
  const replay: ReplayBatchResult = {
    episodes: 25,
    replayed: 400,
    proposed: opts.changesPerBatch + 1,
    rejectedByRule: { claim_unsupported: 1 },
    quarantined: 0,
    plannedChanges: opts.changesPerBatch,
    llmTokens: 0,
  };
  return {
    planRun: rec('planRun', { candidates: 1000, sampled: opts.batches * 25, batches: opts.batches }),
    replayBatch: rec('replayBatch', replay),
    commitBatch: rec('commitBatch', { committed: opts.changesPerBatch, quarantined: 0 }),
    reindexBatch: rec('reindexBatch', { embedded: opts.changesPerBatch, embedder: 'fake' }),
    indexRecords: async (input: { after: string | null }) => {
      calls.push({ name: 'indexRecords', input });
      // Two calls' worth of archive objects: the first hands back a cursor, the second finishes
      // (answering as a worker from before vector forms did, without `replaced`).
      return input.after === null
        ? {
            objects: 8,
            records: 120,
            replaced: 30,
            embedded: 100,
            after: 'raw/tenant=acme/date=2026-11-05/p-8.jsonl.gz',
          }
        : { objects: 3, records: 40, embedded: 40, after: null };
    },
    finishRun: rec('finishRun', {
      changedVersions: [{ noteId: 'N1', fromVersion: null, toVersion: 1 }],
      changedVersionsTruncated: false,
    }),
    resolveStaged: rec('resolveStaged', { changed: 1 }),
    releaseTenantOperation: rec('releaseTenantOperation', { released: true }),
  } as unknown as Partial<ConsolidationActivities>;
}

let client: Client;

/** The run id of a workflow's first execution (its chain of continued runs starts there). */
async function firstRunId(workflowId: string): Promise<string> {
  const latest = await client.workflow.getHandle(workflowId).fetchHistory();
  const started = latest.events?.[0]?.workflowExecutionStartedEventAttributes;
  return started?.firstExecutionRunId ?? '';
}
let close: () => Promise<void>;
beforeAll(async () => ({ client, close } = await temporalClient()));
afterAll(async () => close?.());

describe('consolidateTenantWorkflow', () => {
  it('fails fast and non-retryably on invalid input, naming the field, before any activity runs', async () => {
    const calls: Calls = [];
    await withWorker(fakeActivities({ batches: 1, changesPerBatch: 1 }, calls), async (taskQueue) => {
      const run = client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId: uniqueId('consolidate-bad'),
        args: [{ tenantId: 'bad tenant!', trigger: 'manual', budget: { maxEpisodes: -1 } } as never],
      });
      const error = await run.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('InvalidWorkflowInput');
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(/tenantId: .*budget\.maxEpisodes/);
    });
    expect(calls).toEqual([]);
  });

  it('replays, commits and reindexes every planned batch and reports the totals', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-ok');
    const result = await withWorker(fakeActivities({ batches: 3, changesPerBatch: 2 }, calls), (taskQueue) =>
      client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', trigger: 'manual', seed: 7 }],
      }),
    );
    await maybeRecordHistory(client, workflowId, 'consolidate-normal');
    await maybeRecordHistory(client, workflowId, 'consolidate-operation-lease');
    expect(result.status).toBe('completed');
    expect(result.counts).toMatchObject({ sampled: 75, replayed: 1200, proposed: 9, rejected: 3, committed: 6 });
    expect(result.rejectedByRule).toEqual({ claim_unsupported: 3 });
    // Batches commit one after another without waiting for embeddings; the run's claims are
    // embedded once, by the note-vectors step, beside the raw-record indexing step. The tenant's
    // operation lease (taken by planRun) is freed after the last commit.
    expect(calls.map((c) => c.name).filter((n) => n !== 'reindexBatch')).toEqual([
      'planRun',
      ...Array.from({ length: 3 }, () => ['replayBatch', 'commitBatch']).flat(),
      'releaseTenantOperation',
      'indexRecords',
      'indexRecords',
      'finishRun',
    ]);
    const runId = (calls[0]?.input as { runId: string }).runId;
    expect(calls.filter((c) => c.name === 'reindexBatch').map((c) => c.input)).toEqual([
      { runId, tenantId: 'acme', batchNo: 0 },
    ]);
    expect(result.vectors).toEqual({ workflowId: `note-vectors/acme/${runId.split('/').at(-1)}`, complete: true });
    // The raw records are indexed by a step of their own, which the run waited for.
    expect(result.records).toEqual({ workflowId: `record-index/acme/${runId.split('/').at(-1)}`, complete: true });
    expect(calls[0]?.input).toMatchObject({ tenantId: 'acme', seed: 7, trigger: 'manual' });
    expect(result.changedVersions).toEqual([{ noteId: 'N1', fromVersion: null, toVersion: 1 }]);
  });

  it('commits and finishes without waiting for a slow embedding step, which completes on its own', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-slow-vectors');
    const slow = {
      ...fakeActivities({ batches: 2, changesPerBatch: 1 }, calls),
      reindexBatch: async () => {
        await new Promise((r) => setTimeout(r, 8000));
        return { embedded: 2, embedder: 'fake' };
      },
    };
    await withWorker(slow, async (taskQueue) => {
      const result = await client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', trigger: 'manual', vectorWaitSeconds: 1 }],
      });
      expect(result).toMatchObject({ status: 'completed', counts: { committed: 2 } });
      expect(result.vectors).toMatchObject({ complete: false });
      expect(result.vectors?.error).toBeUndefined();
      // The run is over while the step still embeds; it outlives the run and finishes by itself.
      const step = client.workflow.getHandle(result.vectors?.workflowId ?? '');
      expect((await step.describe()).status.name).toBe('RUNNING');
      expect(await step.result()).toEqual({ embedded: 2, embedder: 'fake' });
      await maybeRecordHistory(client, step.workflowId, 'index-note-vectors');
    });
    await maybeRecordHistory(client, workflowId, 'consolidate-vectors-after-commit');
  });

  it('completes the run with its notes when the embedding step fails, and says why', async () => {
    const calls: Calls = [];
    const failing = {
      ...fakeActivities({ batches: 1, changesPerBatch: 1 }, calls),
      reindexBatch: async () => {
        throw ApplicationFailure.nonRetryable('model answered all-zero vectors', 'EmbeddingInvalid');
      },
    };
    const result = await withWorker(failing, (taskQueue) =>
      client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId: uniqueId('consolidate-failed-vectors'),
        args: [{ tenantId: 'acme', trigger: 'manual' }],
      }),
    );
    expect(result).toMatchObject({ status: 'completed', counts: { committed: 1 } });
    expect(result.vectors).toMatchObject({
      complete: false,
      error: expect.stringMatching(/activity task failed|all-zero/i),
    });
  });

  it("indexes the window's raw records after the batches, following the cursor until the last object", async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-index');
    const window = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-05T00:00:00.000Z' };
    const result = await withWorker(fakeActivities({ batches: 1, changesPerBatch: 1 }, calls), (taskQueue) =>
      client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', trigger: 'manual', window }],
      }),
    );
    await maybeRecordHistory(client, workflowId, 'consolidate-index-records');
    expect(result.status).toBe('completed');
    const indexing = calls.filter((c) => c.name === 'indexRecords').map((c) => c.input);
    expect(indexing).toEqual([
      { tenantId: 'acme', window, after: null, maxObjects: 8 },
      { tenantId: 'acme', window, after: 'raw/tenant=acme/date=2026-11-05/p-8.jsonl.gz', maxObjects: 8 },
    ]);
    // The note-vectors step (reindexBatch) runs beside the record indexing, in either order.
    expect(
      calls
        .map((c) => c.name)
        .filter((n) => n !== 'reindexBatch')
        .slice(-3),
    ).toEqual(['indexRecords', 'indexRecords', 'finishRun']);
  });

  it('finishes without waiting for a slow raw-record index, whose step completes on its own', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-slow-records');
    const window = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-05T00:00:00.000Z' };
    const fakes = fakeActivities({ batches: 2, changesPerBatch: 1 }, calls);
    const slow = {
      ...fakes,
      indexRecords: async (input: { after: string | null }) => {
        await new Promise((r) => setTimeout(r, 4000));
        return (fakes.indexRecords as (i: { after: string | null }) => Promise<unknown>)(input);
      },
    };
    await withWorker(slow, async (taskQueue) => {
      const result = await client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', trigger: 'manual', window, vectorWaitSeconds: 1 }],
      });
      expect(result).toMatchObject({ status: 'completed', counts: { committed: 2 } });
      const runId = result.runId.split('/').at(-1);
      expect(result.records).toEqual({ workflowId: `record-index/acme/${runId}`, complete: false });
      // The run reported while the window was still being indexed; the step goes on by itself.
      const step = client.workflow.getHandle(result.records?.workflowId ?? '');
      expect((await step.describe()).status.name).toBe('RUNNING');
      expect(await step.result()).toEqual({ objects: 11, records: 160, replaced: 30, embedded: 140 });
      expect(calls.filter((c) => c.name === 'indexRecords').map((c) => c.input)).toEqual([
        { tenantId: 'acme', window, after: null, maxObjects: 8 },
        { tenantId: 'acme', window, after: 'raw/tenant=acme/date=2026-11-05/p-8.jsonl.gz', maxObjects: 8 },
      ]);
      await maybeRecordHistory(client, step.workflowId, 'index-run-records');
    });
    await maybeRecordHistory(client, workflowId, 'consolidate-record-index-step');
  });

  it('stops cleanly when the next batch would exceed the note change budget, and reports partial', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-budget');
    const result = await withWorker(fakeActivities({ batches: 4, changesPerBatch: 3 }, calls), (taskQueue) =>
      client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', trigger: 'manual', budget: { maxNoteChanges: 5 } }],
      }),
    );
    await maybeRecordHistory(client, workflowId, 'consolidate-budget-exhausted');
    expect(result.status).toBe('partial');
    expect(result.spent.noteChanges).toBeLessThanOrEqual(result.budget.maxNoteChanges);
    expect(result.counts.committed).toBe(3);
    expect(result.leftover).toMatchObject({ batches: 3, reason: expect.stringMatching(/note change budget/) });
    expect(calls.filter((c) => c.name === 'commitBatch')).toHaveLength(1);
  });

  it('continues as new to keep each execution short, carrying its counts and budget across', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-continued');
    const result = await withWorker(fakeActivities({ batches: 5, changesPerBatch: 1 }, calls), (taskQueue) =>
      client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', trigger: 'manual', batchesPerExecution: 2 }],
      }),
    );
    expect(result.status).toBe('completed');
    expect(result.counts.committed).toBe(5);
    expect(result.spent.noteChanges).toBe(5);
    expect(calls.filter((c) => c.name === 'commitBatch').map((c) => (c.input as { batchNo: number }).batchNo)).toEqual([
      0, 1, 2, 3, 4,
    ]);
    // Follow the chain of runs through each history's last event.
    const chain: string[] = [];
    for (let id: string | null | undefined = await firstRunId(workflowId); id;) {
      const history = await client.workflow.getHandle(workflowId, id).fetchHistory();
      const last = history.events?.at(-1);
      chain.push(last?.workflowExecutionContinuedAsNewEventAttributes ? 'continued' : 'completed');
      id = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    }
    expect(chain).toEqual(['continued', 'continued', 'completed']);
    // The lease stays with the workflow id across the chain: freed once, after the last commit.
    expect(calls.filter((c) => c.name === 'releaseTenantOperation')).toHaveLength(1);
    expect(calls.findIndex((c) => c.name === 'releaseTenantOperation')).toBe(
      calls.findLastIndex((c) => c.name === 'commitBatch') + 1,
    );
    await maybeRecordHistory(client, workflowId, 'consolidate-continued-as-new-final');
  });

  it('waits in staged mode until an operator approves, refusing approval before that', async () => {
    const calls: Calls = [];
    await withWorker(fakeActivities({ batches: 1, changesPerBatch: 2 }, calls), async (taskQueue) => {
      const handle = await client.workflow.start(consolidateTenantWorkflow, {
        taskQueue,
        workflowId: uniqueId('consolidate-staged'),
        args: [{ tenantId: 'acme', trigger: 'manual', mode: 'staged' }],
      });
      await expect
        .poll(async () => (await handle.query(progressQuery)).phase, { timeout: 20_000 })
        .toBe('awaiting_approval');
      const bad = await handle.executeUpdate(approveUpdate, { args: [{ operator: '' }] }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(WorkflowUpdateFailedError);
      await handle.executeUpdate(approveUpdate, { args: [{ operator: 'ops@acme', reason: 'looks right' }] });
      const result = await handle.result();
      expect(result.status).toBe('completed');
      await maybeRecordHistory(client, handle.workflowId, 'consolidate-staged-approved');
    });
    const resolve = calls.find((c) => c.name === 'resolveStaged');
    expect(resolve?.input).toMatchObject({ decision: 'approve', actor: 'ops@acme' });
  });
});
