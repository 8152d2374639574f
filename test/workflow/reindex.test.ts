import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationActivities } from '../../activities/index.ts';
import type { ReindexPageResult, ReindexStart, ReindexSwitch } from '../../activities/reindex.ts';
import { reindexProgressQuery, reindexWorkflow } from '../../workflows/reindex.ts';
import {
  maybeRecordHistory,
  temporalClient,
  uniqueId,
  withWorker,
  workflowFailure as failure,
} from '../helpers/temporal.ts';

// reindexWorkflow on the real dev server with fake activities: input checks, paging with a
// cursor, continue-as-new, the switch only after the last page, and how permanent faults end it.

type Calls = Array<{ name: string; input: Record<string, unknown> }>;

/** A tenant of `notes` notes, paged by the fake like the real query: note ids n000, n001, … */
function fakes(
  calls: Calls,
  opts: { notes: number; failPage?: number; failSwitch?: boolean },
): Partial<ConsolidationActivities> {
  const ids = Array.from({ length: opts.notes }, (_, i) => `n${String(i).padStart(3, '0')}`);
  return {
    beginReindex: async (input: Record<string, unknown>): Promise<ReindexStart> => {
      calls.push({ name: 'beginReindex', input });
      return { model: 'openai:e5', dimension: 384, total: opts.notes, previousModel: 'openai:old' };
    },
    reembedPage: async (
      input: { after: string | null; limit: number } & Record<string, unknown>,
    ): Promise<ReindexPageResult> => {
      calls.push({ name: 'reembedPage', input });
      if (calls.filter((c) => c.name === 'reembedPage').length === opts.failPage) {
        throw ApplicationFailure.nonRetryable(
          'embedder gives dimension 1024, expected 384',
          'EmbeddingDimensionMismatch',
        );
      }
      const rest = ids.filter((id) => input.after === null || id > input.after);
      const page = rest.slice(0, input.limit);
      return { embedded: page.length, after: page.length < input.limit ? null : (page[page.length - 1] ?? null) };
    },
    switchEmbeddings: async (input: Record<string, unknown>): Promise<ReindexSwitch> => {
      calls.push({ name: 'switchEmbeddings', input });
      if (opts.failSwitch) throw ApplicationFailure.nonRetryable('superseded', 'ReindexSuperseded');
      return { switched: opts.notes, generation: 2, previousModel: 'openai:old' };
    },
    releaseTenantOperation: async (input: Record<string, unknown>) => {
      calls.push({ name: 'releaseTenantOperation', input });
      return { released: true };
    },
  } as unknown as Partial<ConsolidationActivities>;
}

let client: Client;
let close: () => Promise<void>;
beforeAll(async () => ({ client, close } = await temporalClient()));
afterAll(async () => close?.());

describe('reindexWorkflow', () => {
  it.each([
    ['a bad tenant id', { tenantId: 'bad tenant!' }, /tenantId/],
    ['no tenant', {}, /tenantId/],
    ['a page size of 0', { tenantId: 'acme', pageSize: 0 }, /pageSize/],
  ])('fails fast, non-retryably, on %s', async (_name, input, field) => {
    const calls: Calls = [];
    await withWorker(fakes(calls, { notes: 3 }), async (taskQueue) => {
      const f = await failure(
        client.workflow.execute(reindexWorkflow, {
          taskQueue,
          workflowId: uniqueId('reindex-bad'),
          args: [input as never],
        }),
      );
      expect(f.type).toBe('InvalidWorkflowInput');
      expect(f.nonRetryable).toBe(true);
      expect(f.message).toMatch(field);
    });
    expect(calls).toEqual([]);
  });

  it('re-embeds every page with a cursor, continues as new, and switches once after the last page', async () => {
    const calls: Calls = [];
    const workflowId = uniqueId('reindex/acme');
    const result = await withWorker(fakes(calls, { notes: 7 }), async (taskQueue) => {
      const handle = await client.workflow.start(reindexWorkflow, {
        taskQueue,
        workflowId,
        args: [{ tenantId: 'acme', reason: 'model change', pageSize: 3, pagesPerExecution: 2 }],
      });
      const r = await handle.result();
      await maybeRecordHistory(client, workflowId, 'reindex');
      await maybeRecordHistory(client, workflowId, 'reindex-operation-lease');
      expect(await handle.query(reindexProgressQuery)).toMatchObject({
        phase: 'done',
        embedded: 7,
        total: 7,
        pages: 3,
      });
      return r;
    });
    expect(calls.map((c) => c.name)).toEqual([
      'beginReindex',
      'reembedPage',
      'reembedPage',
      'reembedPage',
      'switchEmbeddings',
      // Freed once at the end: the lease is kept across continue-as-new.
      'releaseTenantOperation',
    ]);
    expect(calls.filter((c) => c.name === 'reembedPage').map((c) => c.input['after'])).toEqual([null, 'n002', 'n005']);
    // One rebuild id across continue-as-new, and the model chosen at the start is enforced on every page.
    const steps = calls.filter((c) => c.name !== 'releaseTenantOperation');
    const ids = new Set(steps.map((c) => c.input['reindexId']));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(new RegExp(`^${workflowId}/`));
    expect(steps.slice(1).every((c) => c.input['model'] === 'openai:e5')).toBe(true);
    expect(result).toEqual({
      tenantId: 'acme',
      reason: 'model change',
      model: 'openai:e5',
      dimension: 384,
      previousModel: 'openai:old',
      embedded: 7,
      pages: 3,
      switched: 7,
      generation: 2,
    });
    const executions = await client.workflow.list({ query: `WorkflowId = '${workflowId}'` });
    let runs = 0;
    for await (const _ of executions) runs++;
    expect(runs).toBe(2);
  });

  it('never switches when a page fails permanently, and reports the cause', async () => {
    const calls: Calls = [];
    await withWorker(fakes(calls, { notes: 10, failPage: 2 }), async (taskQueue) => {
      const f = await failure(
        client.workflow.execute(reindexWorkflow, {
          taskQueue,
          workflowId: uniqueId('reindex-fail'),
          args: [{ tenantId: 'acme', pageSize: 3 }],
        }),
      );
      expect((f.cause as ApplicationFailure).type).toBe('EmbeddingDimensionMismatch');
    });
    // The failed rebuild frees the tenant's operation lease.
    expect(calls.map((c) => c.name)).toEqual(['beginReindex', 'reembedPage', 'reembedPage', 'releaseTenantOperation']);
  });

  it('an empty tenant switches at once', async () => {
    const calls: Calls = [];
    const result = await withWorker(fakes(calls, { notes: 0 }), (taskQueue) =>
      client.workflow.execute(reindexWorkflow, {
        taskQueue,
        workflowId: uniqueId('reindex-empty'),
        args: [{ tenantId: 'acme' }],
      }),
    );
    expect(calls.map((c) => c.name)).toEqual([
      'beginReindex',
      'reembedPage',
      'switchEmbeddings',
      'releaseTenantOperation',
    ]);
    expect(result.embedded).toBe(0);
  });
});
