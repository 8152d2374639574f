import type { Client } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommittedChange, ConsolidationActivities, ReplayBatchResult } from '../../activities/index.ts';
import { consolidateTenantWorkflow } from '../../workflows/consolidate-tenant.ts';
import { progressQuery } from '../../workflows/consolidate-messages.ts';
import { CHANGED_NOTES } from '../../src/contracts/search-attributes.ts';
import { maybeRecordHistory, temporalClient, uniqueId, withWorker, workflowFailure } from '../helpers/temporal.ts';

// What an operator sees of a consolidation in the Temporal UI (current details, the changed-notes
// search attribute, the run's status) and how a batch that meets a rollback is planned again,
// against the real dev server with fake activities.

type Calls = Array<{ name: string; input: unknown }>;

const REPLAYED: ReplayBatchResult = {
  episodes: 5,
  replayed: 40,
  proposed: 2,
  rejectedByRule: {},
  quarantined: 0,
  plannedChanges: 2,
  llmTokens: 0,
};

const change = (noteId: string, fromVersion: number | null): CommittedChange => ({
  noteId,
  action: fromVersion === null ? 'create' : 'revise',
  fromVersion,
  toVersion: (fromVersion ?? 0) + 1,
  status: 'active',
});

const CHANGES = [change('NEW1', null), change('OLD1', 2)];

/** `conflicts`: how many commits fail with NoteVersionConflict before one succeeds. */
function fakes(calls: Calls, conflicts = 0): Partial<ConsolidationActivities> {
  const rec =
    <T>(name: string, result: T) =>
    async (input: unknown) => {
      calls.push({ name, input });
      return result;
    };
  let failing = conflicts;
  return {
    planRun: rec('planRun', { candidates: 10, sampled: 5, batches: 1 }),
    replayBatch: rec('replayBatch', REPLAYED),
    commitBatch: async (input: unknown) => {
      calls.push({ name: 'commitBatch', input });
      if (failing-- > 0)
        throw ApplicationFailure.create({ message: 'note moved', type: 'NoteVersionConflict', nonRetryable: true });
      return { committed: 2, quarantined: 0, changes: CHANGES };
    },
    reindexBatch: rec('reindexBatch', { embedded: 2, embedder: 'fake' }),
    indexRecords: rec('indexRecords', { objects: 0, records: 0, embedded: 0, after: null }),
    finishRun: rec('finishRun', { changedVersions: [], changedVersionsTruncated: false }),
    releaseTenantOperation: rec('releaseTenantOperation', { released: true }),
  } as unknown as Partial<ConsolidationActivities>;
}

let client: Client;
let close: () => Promise<void>;
beforeAll(async () => ({ client, close } = await temporalClient()));
afterAll(async () => close?.());

const start = (taskQueue: string, workflowId: string) =>
  client.workflow.execute(consolidateTenantWorkflow, {
    taskQueue,
    workflowId,
    args: [{ tenantId: 'acme', trigger: 'schedule', seed: 1 }],
  });

async function currentDetails(workflowId: string): Promise<string> {
  const metadata = await client.workflow
    .getHandle(workflowId)
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

describe('consolidateTenantWorkflow as seen from the Temporal UI', () => {
  it('publishes each change with its old → new version, how to read its claim and a rollback input, and the changed note ids', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-published');
    await withWorker(fakes(calls), async (taskQueue) => {
      await start(taskQueue, workflowId);
      const details = await currentDetails(workflowId);
      expect(details).toContain('## Consolidation of `acme` (schedule)');
      expect(details).toContain('`NEW1` new → v1 · create · active');
      expect(details).toContain('`nocturne notes show NEW1 --tenant acme` shows its claim');
      expect(details).toContain('`OLD1` v2 → v3 · revise');
      const inputs = [...details.matchAll(/```json\n(.*)\n```/g)].map((m) => JSON.parse(m[1] ?? '{}'));
      expect(inputs).toEqual([
        { tenantId: 'acme', noteId: 'NEW1', action: 'retire', reason: '<why>', operator: '<your name>' },
        { tenantId: 'acme', noteId: 'OLD1', toVersion: 2, reason: '<why>', operator: '<your name>' },
      ]);
    });
    const described = await client.workflow.getHandle(workflowId).describe();
    expect(described.typedSearchAttributes.get(CHANGED_NOTES)).toEqual(['NEW1', 'OLD1']);
    await maybeRecordHistory(client, workflowId, 'consolidate-published-changes');
  });

  it('plans a batch again once when its commit meets a note a rollback moved, and commits that plan', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-replanned');
    const result = await withWorker(fakes(calls, 1), (taskQueue) => start(taskQueue, workflowId));
    expect(result.status).toBe('completed');
    // The run's claims are embedded by the note-vectors step after the commits (reindexBatch).
    const names = calls.map((c) => c.name).filter((n) => n !== 'reindexBatch');
    expect(names.slice(0, 5)).toEqual(['planRun', 'replayBatch', 'commitBatch', 'replayBatch', 'commitBatch']);
    expect(calls.filter((c) => c.name === 'reindexBatch')).toHaveLength(1);
    expect(calls[3]?.input).toMatchObject({ batchNo: 0, replan: true });
    expect(calls[4]?.input).toMatchObject({ batchNo: 0, replan: true });
    await maybeRecordHistory(client, workflowId, 'consolidate-replanned-batch');
  });

  it('a second conflict fails the run, and the run row and NocturneStatus say failed', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('consolidate-failed');
    await withWorker(fakes(calls, 2), async (taskQueue) => {
      const activityFailure = await workflowFailure(start(taskQueue, workflowId));
      expect((activityFailure.cause as ApplicationFailure).type).toBe('NoteVersionConflict');
    });
    const finish = calls.find((c) => c.name === 'finishRun');
    expect(finish?.input).toMatchObject({ tenantId: 'acme', status: 'failed' });
    // A failed run frees the tenant's operation lease after marking its row.
    expect(calls.map((c) => c.name).slice(-2)).toEqual(['finishRun', 'releaseTenantOperation']);
    const described = await client.workflow.getHandle(workflowId).describe();
    expect(described.searchAttributes['NocturneStatus']).toEqual(['failed']);
    await maybeRecordHistory(client, workflowId, 'consolidate-failed');
    await maybeRecordHistory(client, workflowId, 'consolidate-failed-operation-lease');
  });
});

/** The CLI in its own process (async: the worker in this process must keep polling meanwhile). */
async function nocturne(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, ['bin/nocturne.mjs', ...args], { timeout: 120_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('nocturne approve|reject <workflowId>', () => {
  it.each([
    ['approve', ['--operator', 'dana'], 'approve', 'completed'],
    ['reject', ['--operator', 'dana', '--reason', 'claims look wrong'], 'reject', 'rejected'],
  ] as const)('%s sends the staged run its decision', async (command, options, decision, status) => {
    const calls: Calls = [];
    const workflowId = uniqueId(`consolidate-staged-${command}`);
    await withWorker(
      {
        ...fakes(calls),
        resolveStaged: async (input: unknown) => {
          calls.push({ name: 'resolveStaged', input });
          return { changed: 2 };
        },
      } as Partial<ConsolidationActivities>,
      async (taskQueue) => {
        const handle = await client.workflow.start(consolidateTenantWorkflow, {
          taskQueue,
          workflowId,
          args: [{ tenantId: 'acme', trigger: 'manual', mode: 'staged', seed: 1 }],
        });
        for (let i = 0; i < 100 && (await handle.query(progressQuery)).phase !== 'awaiting_approval'; i++)
          await new Promise((r) => setTimeout(r, 200));
        expect(await currentDetails(workflowId)).toContain(`nocturne approve ${workflowId}`);
        const r = await nocturne(command, workflowId, ...options);
        expect(r.code, r.stderr).toBe(0);
        expect((await handle.result()).status).toBe(status);
        const again = await nocturne('approve', workflowId, '--operator', 'dana');
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/refused approve|not found|completed/);
      },
    );
    expect(calls.find((c) => c.name === 'resolveStaged')?.input).toMatchObject({ decision, actor: 'dana' });
  });

  it('reject without a reason is a usage error', async () => {
    const r = await nocturne('reject', 'consolidate/acme/x', '--operator', 'dana');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--reason/);
  });
});
