import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationActivities } from '../../activities/index.ts';
import { temporalTestServerPath } from '../../src/stack/index.ts';
import { consolidateTenantWorkflow } from '../../workflows/consolidate-tenant.ts';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/contracts/search-attributes.ts';
import { uniqueId, workflowBundle } from '../helpers/temporal.ts';

// A staged run nobody decides on: on the time-skipping server a day of waiting passes at once,
// and the default decision is reject.

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
  });
  const keyword = Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((name) => [name, 2]));
  await env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: keyword });
});
afterAll(async () => env?.teardown());

describe('staged consolidation approval timeout', () => {
  it('rejects the staged changes when no operator decides within the timeout', async () => {
    const resolved: unknown[] = [];
    const order: string[] = [];
    const activities = {
      planRun: async () => ({ candidates: 10, sampled: 10, batches: 1 }),
      replayBatch: async () => ({
        episodes: 10,
        replayed: 60,
        proposed: 3,
        rejectedByRule: {},
        quarantined: 0,
        plannedChanges: 3,
        llmTokens: 0,
      }),
      commitBatch: async () => ({ committed: 3, quarantined: 0 }),
      reindexBatch: async () => ({ embedded: 3, embedder: 'fake' }),
      resolveStaged: async (input: unknown) => {
        resolved.push(input);
        order.push('resolveStaged');
        return { changed: 3 };
      },
      releaseTenantOperation: async () => {
        order.push('releaseTenantOperation');
        return { released: true };
      },
      finishRun: async () => ({ changedVersions: [], changedVersionsTruncated: false }),
      indexRecords: async () => ({ objects: 0, records: 0, embedded: 0, after: null }),
    } as unknown as Partial<ConsolidationActivities>;
    const taskQueue = uniqueId('approval');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities,
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(consolidateTenantWorkflow, {
        taskQueue,
        workflowId: uniqueId('consolidate-staged-timeout'),
        args: [{ tenantId: 'acme', trigger: 'manual', mode: 'staged', approvalTimeoutSeconds: 86_400 }],
      }),
    );
    expect(result.status).toBe('rejected');
    // The run freed the tenant after its last commit: it did not hold it through the day's wait.
    expect(order).toEqual(['releaseTenantOperation', 'resolveStaged']);
    expect(resolved).toEqual([
      expect.objectContaining({ decision: 'reject', actor: 'approval-timeout', reason: 'no decision within 86400s' }),
    ]);
  });
});
