import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsolidationActivities } from '../../activities/index.ts';
import { createTenantActivities } from '../../activities/tenants.ts';
import type { ActivityDeps } from '../../activities/deps.ts';
import { reportConflict } from '../../src/conflicts/report-conflict.ts';
import { applyNightlySchedule, describeNightlySchedule } from '../../src/schedule/index.ts';
import {
  conflictMonitorWorkflow,
  conflictProgressQuery,
  type ConflictProgress,
} from '../../workflows/conflict-monitor.ts';
import { consolidateTenantWorkflow } from '../../workflows/consolidate-tenant.ts';
import { nightlyConsolidationWorkflow } from '../../workflows/nightly-consolidation.ts';
import { TENANT } from '../../src/contracts/search-attributes.ts';
import { maybeRecordHistory, temporalClient, uniqueId, withWorker } from '../helpers/temporal.ts';

// The triggers against the real dev server: fake consolidation activities that record which
// runs were planned (and can hold a run open), real child workflows, real signal-with-start.

interface Planned {
  workflowId: string;
  tenantId: string;
  trigger: string;
  focus?: { noteIds: string[] };
}

interface Fakes {
  planned: Planned[];
  maxInFlight: number;
  /** Runs whose workflow id includes one of these hold in planRun until released. */
  hold: Set<string>;
  release: () => void;
}

function fakeConsolidation(opts: { failTenant?: string; busyTenant?: string; planMs?: number } = {}): {
  fakes: Fakes;
  activities: Partial<ConsolidationActivities>;
} {
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let gate = new Promise<void>((r) => (wake = r));
  const fakes: Fakes = {
    planned: [],
    maxInFlight: 0,
    hold: new Set(),
    release: () => {
      fakes.hold.clear();
      wake?.();
      gate = new Promise<void>((r) => (wake = r));
    },
  };
  const activities = {
    planRun: async (input: Planned) => {
      fakes.planned.push({
        workflowId: input.workflowId,
        tenantId: input.tenantId,
        trigger: input.trigger,
        ...(input.focus ? { focus: input.focus } : {}),
      });
      inFlight++;
      fakes.maxInFlight = Math.max(fakes.maxInFlight, inFlight);
      try {
        if (input.tenantId === opts.failTenant)
          throw ApplicationFailure.nonRetryable('archive unreadable', 'ArchiveManifestInvalid');
        if (input.tenantId === opts.busyTenant)
          throw ApplicationFailure.nonRetryable(
            `tenant ${input.tenantId} is busy: erasure erase/x holds its operation lease`,
            'TenantBusy',
          );
        await new Promise((r) => setTimeout(r, opts.planMs ?? 50));
        while ([...fakes.hold].some((h) => input.workflowId.includes(h))) await gate;
        return { candidates: 0, sampled: 0, batches: 0 };
      } finally {
        inFlight--;
      }
    },
    finishRun: async () => ({ changedVersions: [], changedVersionsTruncated: false }),
    releaseTenantOperation: async () => ({ released: true }),
    indexRecords: async () => ({ objects: 0, records: 0, embedded: 0, after: null }),
  } as unknown as Partial<ConsolidationActivities>;
  return { fakes, activities };
}

/** The real visibility check; the archive is not used by it. */
const realExclusion = () => ({
  findRunningConsolidation: createTenantActivities({} as ActivityDeps).findRunningConsolidation,
});

const tenantsFrom = (all: string[]) => ({
  listActiveTenants: async (input: { after?: string; limit: number }) => {
    const rest = all.filter((t) => input.after === undefined || t > input.after).sort();
    return { tenants: rest.slice(0, input.limit), more: rest.length > input.limit };
  },
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const isRunningVisible = (client: Client, tenantId: string) => async () => {
  for await (const wf of client.workflow.list({
    query: `NocturneTenant = '${tenantId}' AND ExecutionStatus = 'Running' AND WorkflowType = 'consolidateTenantWorkflow'`,
  }))
    return wf.workflowId;
  return undefined;
};

let client: Client;
let close: () => Promise<void>;
beforeAll(async () => ({ client, close } = await temporalClient()));
afterAll(async () => close?.());

describe('nightlyConsolidationWorkflow', () => {
  it('fails fast and non-retryably on invalid input, naming the field', async () => {
    await withWorker({}, async (taskQueue) => {
      const error = await client.workflow
        .execute(nightlyConsolidationWorkflow, {
          taskQueue,
          workflowId: uniqueId('nightly-bad'),
          args: [{ concurrency: 0, date: '30/11/2026' } as never],
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('InvalidWorkflowInput');
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(/date: expected YYYY-MM-DD.*concurrency/);
    });
  });

  it('runs one schedule-triggered child per tenant with deterministic ids, at most `concurrency` at once; a failed tenant is reported, not fatal', async () => {
    const tenants = ['a', 'b', 'c', 'd', 'e'].map((t) => uniqueId(`n${t}`));
    const { fakes, activities } = fakeConsolidation({ failTenant: tenants[2], planMs: 400 });
    const workflowId = uniqueId('nightly');
    const result = await withWorker({ ...activities, ...tenantsFrom(tenants), ...realExclusion() }, (taskQueue) =>
      client.workflow.execute(nightlyConsolidationWorkflow, {
        taskQueue,
        workflowId,
        args: [{ date: '2026-11-30', concurrency: 2 }],
      }),
    );
    await maybeRecordHistory(client, workflowId, 'nightly-consolidation');
    expect(fakes.maxInFlight).toBe(2);
    expect(fakes.planned.map((p) => p.workflowId).sort()).toEqual(
      tenants.map((t) => `consolidate/${t}/2026-11-30`).sort(),
    );
    expect(new Set(fakes.planned.map((p) => p.trigger))).toEqual(new Set(['schedule']));
    expect(result.tenants).toBe(5);
    expect(result.totals).toEqual({ completed: 4, partial: 0, rejected: 0, skipped: 0, failed: 1 });
    const failed = result.results.find((r) => r.tenantId === tenants[2]);
    expect(failed).toMatchObject({
      outcome: 'failed',
      workflowId: `consolidate/${tenants[2]}/2026-11-30`,
      reason: expect.stringMatching(/ArchiveManifestInvalid/),
    });
  });

  it('skips a tenant whose operation lease a rollback, an erasure or a reindex holds', async () => {
    const [busy, free] = ['b', 'f'].map((t) => uniqueId(`l${t}`)) as [string, string];
    const { activities } = fakeConsolidation({ busyTenant: busy });
    const result = await withWorker(
      { ...activities, ...tenantsFrom([busy, free]), findRunningConsolidation: async () => ({}) },
      (taskQueue) =>
        client.workflow.execute(nightlyConsolidationWorkflow, {
          taskQueue,
          workflowId: uniqueId('nightly-busy'),
          args: [{ date: '2026-11-27' }],
        }),
    );
    expect(result.totals).toMatchObject({ completed: 1, skipped: 1, failed: 0 });
    expect(result.results.find((r) => r.tenantId === busy)).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/TenantBusy: tenant .* is busy: erasure erase\/x holds its operation lease/),
    });
  });

  it('continues as new between pages of tenants and still reports every tenant once', async () => {
    const tenants = ['a', 'b', 'c', 'd', 'e'].map((t) => uniqueId(`p${t}`));
    const { fakes, activities } = fakeConsolidation();
    const workflowId = uniqueId('nightly-pages');
    const result = await withWorker(
      { ...activities, ...tenantsFrom(tenants), findRunningConsolidation: async () => ({}) },
      (taskQueue) =>
        client.workflow.execute(nightlyConsolidationWorkflow, {
          taskQueue,
          workflowId,
          args: [{ date: '2026-11-29', tenantsPerExecution: 2 }],
        }),
    );
    expect(result.results.map((r) => r.tenantId).sort()).toEqual([...tenants].sort());
    expect(fakes.planned).toHaveLength(5);
    const runs = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(wf.status.name);
    expect(runs.filter((s) => s === 'CONTINUED_AS_NEW')).toHaveLength(2);
  });

  it('skips a tenant another run holds, by visibility (any id) and by the per-day id (visibility lag)', async () => {
    const [manual, sameDay, free] = ['m', 's', 'f'].map((t) => uniqueId(`x${t}`)) as [string, string, string];
    const { fakes, activities } = fakeConsolidation();
    fakes.hold.add('manual-').add(`${sameDay}/2026-11-28`);
    const byVisibility = realExclusion().findRunningConsolidation;
    // sameDay's check pretends visibility has not caught up yet, so only the id guard stands.
    const findRunningConsolidation = async (i: { tenantId: string }) => (i.tenantId === sameDay ? {} : byVisibility(i));
    const result = await withWorker(
      { ...activities, ...tenantsFrom([manual, sameDay, free]), findRunningConsolidation },
      async (taskQueue) => {
        await client.workflow.start(consolidateTenantWorkflow, {
          taskQueue,
          workflowId: `consolidate/${manual}/manual-1`,
          args: [{ tenantId: manual, trigger: 'manual' }],
          typedSearchAttributes: [{ key: TENANT, value: manual }],
        });
        await client.workflow.start(consolidateTenantWorkflow, {
          taskQueue,
          workflowId: `consolidate/${sameDay}/2026-11-28`,
          args: [{ tenantId: sameDay, trigger: 'conflict' }],
        });
        await until(isRunningVisible(client, manual), Boolean, 'the manual run in visibility');
        const r = await client.workflow.execute(nightlyConsolidationWorkflow, {
          taskQueue,
          workflowId: uniqueId('nightly-x'),
          args: [{ date: '2026-11-28' }],
        });
        fakes.release();
        return r;
      },
    );
    const by = Object.fromEntries(result.results.map((r) => [r.tenantId, r]));
    expect(by[manual]).toMatchObject({
      outcome: 'skipped',
      reason: `consolidation consolidate/${manual}/manual-1 is running`,
    });
    expect(by[sameDay]).toMatchObject({
      outcome: 'skipped',
      reason: `consolidate/${sameDay}/2026-11-28 is already running`,
    });
    expect(by[free]).toMatchObject({ outcome: 'completed' });
    expect(fakes.planned.filter((p) => p.tenantId === manual)).toHaveLength(1);
    expect(fakes.planned.filter((p) => p.tenantId === sameDay)).toHaveLength(1);
  });
});

describe('conflictMonitorWorkflow', () => {
  const progress = (workflowId: string) => () => client.workflow.getHandle(workflowId).query(conflictProgressQuery);

  it('fails fast and non-retryably on invalid input', async () => {
    await withWorker({}, async (taskQueue) => {
      const error = await client.workflow
        .execute(conflictMonitorWorkflow, {
          taskQueue,
          workflowId: uniqueId('conflicts-bad'),
          args: [{ tenantId: 'no spaces', threshold: 0 } as never],
        })
        .catch((e: unknown) => e);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('InvalidWorkflowInput');
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(/tenantId: .*threshold/);
    });
  });

  it('counts reports, starts one focused conflict run at the threshold, then cools down while it keeps counting', async () => {
    const tenantId = uniqueId('ct');
    const { fakes, activities } = fakeConsolidation();
    await withWorker({ ...activities, ...realExclusion() }, async (taskQueue) => {
      const opts = { taskQueue, threshold: 2, cooldownSeconds: 3600 };
      const first = await reportConflict(client, { tenantId, noteIds: ['N1'], reason: 'user said otherwise' }, opts);
      expect(first.workflowId).toBe(`conflicts/${tenantId}`);
      let p = await until(progress(first.workflowId), (v) => v.count === 1, 'first conflict counted');
      expect(p).toMatchObject({ phase: 'counting', runs: 0, pendingNoteIds: ['N1'] });
      expect(fakes.planned).toHaveLength(0);
      await reportConflict(client, { tenantId, noteIds: ['N2', 'N1'] }, opts);
      p = await until(progress(first.workflowId), (v) => v.phase === 'cooldown', 'cooldown after the run');
      expect(fakes.planned).toEqual([
        {
          workflowId: expect.stringMatching(new RegExp(`^consolidate/${tenantId}/\\d{4}-\\d{2}-\\d{2}$`)),
          tenantId,
          trigger: 'conflict',
          focus: { noteIds: ['N1', 'N2'] },
        },
      ]);
      expect(p).toMatchObject({ runs: 1, count: 0, pendingNoteIds: [], lastRun: { outcome: 'completed' } });
      for (const n of ['N3', 'N4', 'N5']) await reportConflict(client, { tenantId, noteIds: [n] }, opts);
      p = await until(progress(first.workflowId), (v) => v.count === 3, 'conflicts counted during cooldown');
      expect(p).toMatchObject({ phase: 'cooldown', runs: 1, totalConflicts: 5, pendingNoteIds: ['N3', 'N4', 'N5'] });
      expect(fakes.planned).toHaveLength(1);
      await maybeRecordHistory(client, first.workflowId, 'conflict-triggered');
      await client.workflow.getHandle(first.workflowId).terminate('test done');
    });
  });

  it('waits while another consolidation of the tenant runs, then starts its own', async () => {
    const tenantId = uniqueId('cw');
    const { fakes, activities } = fakeConsolidation();
    fakes.hold.add('manual-');
    await withWorker({ ...activities, ...realExclusion() }, async (taskQueue) => {
      await client.workflow.start(consolidateTenantWorkflow, {
        taskQueue,
        workflowId: `consolidate/${tenantId}/manual-1`,
        args: [{ tenantId, trigger: 'manual' }],
        typedSearchAttributes: [{ key: TENANT, value: tenantId }],
      });
      await until(isRunningVisible(client, tenantId), Boolean, 'the manual run in visibility');
      const sent = await client.workflow.signalWithStart(conflictMonitorWorkflow, {
        taskQueue,
        workflowId: `conflicts/${tenantId}`,
        args: [{ tenantId, threshold: 1, busyRetrySeconds: 1 }],
        signal: 'conflict',
        signalArgs: [{ noteIds: ['N9'] }],
      });
      const waiting = await until(
        progress(sent.workflowId),
        (v: ConflictProgress) => v.phase === 'waiting_for_other_run',
        'monitor waiting',
      );
      expect(waiting).toMatchObject({
        count: 1,
        runs: 0,
        pendingNoteIds: ['N9'],
        lastRun: { outcome: 'skipped', reason: `consolidation consolidate/${tenantId}/manual-1 is running` },
      });
      expect(fakes.planned.filter((p) => p.trigger === 'conflict')).toHaveLength(0);
      fakes.release();
      await until(progress(sent.workflowId), (v) => v.runs === 1, 'the conflict run after the manual one');
      const conflictRuns = fakes.planned.filter((p) => p.trigger === 'conflict');
      expect(conflictRuns).toMatchObject([{ focus: { noteIds: ['N9'] } }]);
      await sent.terminate('test done');
    });
  });

  it('continues as new after a fixed number of signals, carrying the count and the pending note ids', async () => {
    const tenantId = uniqueId('cc');
    await withWorker({}, async (taskQueue) => {
      const start = (n: string) =>
        client.workflow.signalWithStart(conflictMonitorWorkflow, {
          taskQueue,
          workflowId: `conflicts/${tenantId}`,
          args: [{ tenantId, threshold: 100, signalsPerExecution: 2 }],
          signal: 'conflict',
          signalArgs: [{ noteIds: [n] }],
        });
      const h = await start('N1');
      await start('N2');
      await start('N3');
      const p = await until(progress(h.workflowId), (v) => v.totalConflicts === 3, 'three conflicts across executions');
      expect(p).toMatchObject({ count: 3, pendingNoteIds: ['N1', 'N2', 'N3'] });
      const desc = await client.workflow.getHandle(h.workflowId).describe();
      expect(desc.runId).not.toBe(h.signaledRunId);
      await client.workflow.getHandle(h.workflowId).terminate('test done');
    });
  });
});

describe('the nightly Schedule', () => {
  it('applies idempotently (created, then updated: one schedule, overlap skip) and its action runs the nightly on the task queue', async () => {
    const scheduleId = uniqueId('nocturne-nightly-test');
    const tenants = [uniqueId('s')];
    const { fakes, activities } = fakeConsolidation();
    try {
      await withWorker(
        { ...activities, ...tenantsFrom(tenants), findRunningConsolidation: async () => ({}) },
        async (taskQueue) => {
          const first = await applyNightlySchedule(client, { cron: '0 2 * * *', taskQueue, scheduleId });
          const second = await applyNightlySchedule(client, {
            cron: '30 3 * * MON-FRI',
            timeZone: 'Europe/Berlin',
            taskQueue,
            scheduleId,
            concurrency: 2,
          });
          expect([first.action, second.action]).toEqual(['created', 'updated']);
          const listed = async () => {
            const ids: string[] = [];
            for await (const sch of client.schedule.list()) if (sch.scheduleId === scheduleId) ids.push(sch.scheduleId);
            return ids;
          };
          expect(await until(listed, (ids) => ids.length > 0, 'the schedule in the list')).toEqual([scheduleId]);
          const view = await describeNightlySchedule(client, scheduleId);
          expect(view).toMatchObject({
            overlap: 'SKIP',
            catchupWindowMs: 4 * 3600_000,
            workflowType: 'nightlyConsolidationWorkflow',
            taskQueue,
            paused: false,
          });
          // 03:30 in Berlin is 02:30 or 01:30 UTC (winter or summer time), on a weekday only.
          expect(view.nextActionTimes[0]).toMatch(/T0[12]:30:00\.000Z$/);
          expect(view.nextActionTimes.map((t) => new Date(t).getUTCDay()).every((d) => d >= 1 && d <= 5)).toBe(true);
          const handle = client.schedule.getHandle(scheduleId);
          await handle.trigger();
          await until(
            async () => fakes.planned.length,
            (n) => n === 1,
            'the triggered nightly to consolidate the tenant',
          );
          expect(fakes.planned[0]).toMatchObject({ tenantId: tenants[0], trigger: 'schedule' });
          await until(
            async () => (await handle.describe()).info.runningActions.length,
            (n) => n === 0,
            'the triggered nightly to finish',
          );
          const recent = (await handle.describe()).info.recentActions;
          expect(recent).toHaveLength(1);
        },
      );
    } finally {
      await client.schedule.getHandle(scheduleId).delete();
    }
  });
});
