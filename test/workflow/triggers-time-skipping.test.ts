import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationActivities } from '../../activities/index.ts';
import { temporalTestServerPath } from '../../src/stack/index.ts';
import { conflictMonitorWorkflow, conflictProgressQuery, conflictSignal } from '../../workflows/conflict-monitor.ts';
import { nightlyConsolidationWorkflow } from '../../workflows/nightly-consolidation.ts';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/contracts/search-attributes.ts';
import { uniqueId, workflowBundle } from '../helpers/temporal.ts';

// Timer-heavy paths on the time-skipping test server: an hour of cooldown passes in
// milliseconds, and the nightly's date comes from workflow time, not the test machine's clock.

interface Planned {
  workflowId: string;
  now: string;
  trigger: string;
  focus?: { noteIds: string[] };
}

function fakes(planned: Planned[], tenants: string[] = []): Partial<ConsolidationActivities> {
  return {
    planRun: async (input: Planned) => {
      planned.push({
        workflowId: input.workflowId,
        now: input.now,
        trigger: input.trigger,
        ...(input.focus ? { focus: input.focus } : {}),
      });
      return { candidates: 0, sampled: 0, batches: 0 };
    },
    finishRun: async () => ({ changedVersions: [], changedVersionsTruncated: false }),
    releaseTenantOperation: async () => ({ released: true }),
    indexRecords: async () => ({ objects: 0, records: 0, embedded: 0, after: null }),
    // The test server has no visibility queries; the id guard still holds.
    findRunningConsolidation: async () => ({}),
    listActiveTenants: async () => ({ tenants, more: false }),
  } as unknown as Partial<ConsolidationActivities>;
}

async function until(ok: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
  });
  // Consolidations set the Nocturne search attributes, which this server must know (2 = KEYWORD).
  const keyword = Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((name) => [name, 2]));
  await env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: keyword });
});
afterAll(async () => env?.teardown());

async function withTsWorker(activities: object, fn: (taskQueue: string) => Promise<void>): Promise<void> {
  const taskQueue = uniqueId('ts');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
  });
  await worker.runUntil(fn(taskQueue));
}

describe('conflictMonitorWorkflow on the time-skipping server', () => {
  it('starts no second run during the cooldown, and one at its end for the conflicts counted meanwhile', async () => {
    const planned: Planned[] = [];
    await withTsWorker(fakes(planned), async (taskQueue) => {
      const tenantId = uniqueId('t');
      const handle = await env.client.workflow.signalWithStart(conflictMonitorWorkflow, {
        taskQueue,
        workflowId: `conflicts/${tenantId}`,
        args: [{ tenantId, threshold: 1, cooldownSeconds: 3600 }],
        signal: conflictSignal,
        signalArgs: [{ noteIds: ['N1'] }],
      });
      const progress = () => handle.query(conflictProgressQuery);
      await until(async () => (await progress()).phase === 'cooldown', 'the first run and its cooldown');
      await handle.signal(conflictSignal, { noteIds: ['N2'], reason: 'contradicted again' });
      await until(async () => (await progress()).count === 1, 'the conflict counted during cooldown');
      await env.sleep('50 minutes');
      expect(planned).toHaveLength(1);
      expect(await progress()).toMatchObject({ phase: 'cooldown', count: 1, runs: 1, pendingNoteIds: ['N2'] });
      await env.sleep('15 minutes');
      await until(() => planned.length === 2, 'the run after the cooldown');
      const [first, second] = planned as [Planned, Planned];
      expect(first.focus).toEqual({ noteIds: ['N1'] });
      expect(second).toMatchObject({ trigger: 'conflict', focus: { noteIds: ['N2'] } });
      expect(Date.parse(second.now) - Date.parse(first.now)).toBeGreaterThanOrEqual(3600_000);
      await handle.terminate('test done');
    });
  });
});

describe('nightlyConsolidationWorkflow on the time-skipping server', () => {
  it("names its children after the workflow's own start day", async () => {
    const planned: Planned[] = [];
    await withTsWorker(fakes(planned, ['acme', 'globex']), async (taskQueue) => {
      const day = new Date(await env.currentTimeMs()).toISOString().slice(0, 10);
      const result = await env.client.workflow.execute(nightlyConsolidationWorkflow, {
        taskQueue,
        workflowId: uniqueId('nightly'),
        args: [{}],
      });
      expect(result).toMatchObject({ date: day, tenants: 2, totals: { completed: 2 } });
      expect(planned.map((p) => p.workflowId).sort()).toEqual([`consolidate/acme/${day}`, `consolidate/globex/${day}`]);
    });
  });
});
