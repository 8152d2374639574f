import {
  ApplicationFailure,
  ChildWorkflowFailure,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ConsolidationActivities } from '../activities/index.ts';
import type { Budget } from '../src/contracts/run.ts';
import { STATUS, TENANT, TRIGGER } from '../src/contracts/search-attributes.ts';
import { consolidationId, consolidationSummary, utcDay } from '../src/contracts/workflow-ids.ts';
import { NightlyInput, type TenantOutcome, type TenantOutcomeKind } from '../src/contracts/workflow-inputs.ts';
import { FailureType } from '../src/contracts/failure-types.ts';
import { BOOKKEEPING } from './activity-options.ts';
import { consolidateTenantWorkflow } from './consolidate-tenant.ts';
import { parseWorkflowInput } from './workflow-input.ts';
import { workflowNowMs } from './workflow-time.ts';

const { listActiveTenants, findRunningConsolidation } = proxyActivities<ConsolidationActivities>(BOOKKEEPING);

/** A nightly result lists at most this many tenants; the totals count them all. @default 500 */
export const MAX_LISTED_TENANTS = 500;

export interface NightlyResult {
  date: string;
  tenants: number;
  totals: Record<TenantOutcomeKind, number>;
  results: TenantOutcome[];
  resultsTruncated: boolean;
}

/**
 * Started by the `nocturne-nightly` Schedule: one child consolidation per active tenant, at most
 * `concurrency` at once. A tenant whose run fails or is already running is reported, never fatal.
 */
export async function nightlyConsolidationWorkflow(raw: NightlyInput = {}): Promise<NightlyResult> {
  const input = parseWorkflowInput(NightlyInput, raw ?? {});
  const date = input.date ?? utcDay(workflowNowMs());
  const totals: Record<TenantOutcomeKind, number> = {
    completed: 0,
    partial: 0,
    rejected: 0,
    skipped: 0,
    failed: 0,
    ...input.carry?.totals,
  };
  const results = input.carry?.results ?? [];
  let after = input.carry?.after;
  let startedHere = 0;
  const since = new Date(Date.parse(`${date}T00:00:00Z`) - (input.activeDays - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);

  for (;;) {
    const page = await listActiveTenants({
      since,
      limit: input.tenantsPerExecution,
      ...(after !== undefined ? { after } : {}),
    });
    await inLanes(page.tenants, input.concurrency, async (tenantId) => {
      const outcome = await consolidateExclusively({
        tenantId,
        date,
        trigger: 'schedule',
        ...(input.budget ? { budget: input.budget } : {}),
      });
      totals[outcome.outcome]++;
      if (results.length < MAX_LISTED_TENANTS) results.push(outcome);
    });
    startedHere += page.tenants.length;
    after = page.tenants.at(-1) ?? after;
    if (!page.more || after === undefined) break;
    // Children of this page are all closed here, so nothing is cut off by continuing.
    if (startedHere >= input.tenantsPerExecution || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof nightlyConsolidationWorkflow>({ ...raw, date, carry: { after, totals, results } });
    }
  }
  const tenants = Object.values(totals).reduce((a, b) => a + b, 0);
  return { date, tenants, totals, results, resultsTruncated: tenants > results.length };
}

/** Runs `fn` over `items` with at most `limit` in flight; deterministic (lanes take items in order). */
async function inLanes<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export interface ExclusiveRun {
  tenantId: string;
  date: string;
  trigger: 'schedule' | 'conflict';
  budget?: Partial<Budget>;
  focus?: { noteIds: string[] };
}

/**
 * Never two consolidations of one tenant at once, whichever trigger started them. Two guards:
 * 1. Visibility: a running `consolidateTenantWorkflow` with NocturneTenant = tenant (any id —
 *    `nocturne run` uses `consolidate/<t>/manual-<ulid>`) → skipped. It catches every trigger but
 *    lags a start by milliseconds.
 * 2. Id: scheduled and conflict-triggered runs share the id `consolidate/<tenant>/<date>`, and
 *    Temporal refuses to start a child whose id is running — strongly consistent, so the race
 *    that (1) leaves open between the nightly and the monitor on the same day is closed.
 * A child refused by the tenant's operation lease (`TenantBusy`: a run rollback, an erasure or a
 * reindex of the tenant, or a consolidation neither guard saw) is skipped too.
 * A lock workflow would be exact for every trigger but puts a round trip and a single point of
 * failure before every run and needs every starter to cooperate; these guards need neither.
 */
export async function consolidateExclusively(run: ExclusiveRun): Promise<TenantOutcome> {
  const workflowId = consolidationId(run.tenantId, run.date);
  const base = { tenantId: run.tenantId, workflowId };
  const busy = await findRunningConsolidation({ tenantId: run.tenantId });
  if (busy.running) return { ...base, outcome: 'skipped', reason: `consolidation ${busy.running} is running` };
  try {
    const child = await startChild(consolidateTenantWorkflow, {
      workflowId,
      args: [
        {
          tenantId: run.tenantId,
          trigger: run.trigger,
          ...(run.budget ? { budget: run.budget } : {}),
          ...(run.focus ? { focus: run.focus } : {}),
        },
      ],
      // The monitor may continue-as-new while a run goes on; the run must not die with it.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      staticSummary: consolidationSummary(run.tenantId, run.trigger),
      // Set at start, not only by the child's first task: shrinks the window the visibility guard misses.
      typedSearchAttributes: [
        { key: TENANT, value: run.tenantId },
        { key: TRIGGER, value: run.trigger },
        { key: STATUS, value: 'running' },
      ],
    });
    const result = await child.result();
    return { ...base, outcome: result.status, runId: result.runId, committed: result.counts.committed };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError)
      return { ...base, outcome: 'skipped', reason: `${workflowId} is already running` };
    if (error instanceof ChildWorkflowFailure) {
      // A run rollback, an erasure or a reindex holds the tenant's operation lease: the run did
      // nothing and the next night tries again, as for a tenant another consolidation holds.
      const { type, reason } = innermostFailure(error);
      return { ...base, outcome: type === FailureType.TenantBusy ? 'skipped' : 'failed', reason };
    }
    throw error;
  }
}

/** The innermost typed failure (child → activity → application): its type, and what went wrong. */
function innermostFailure(error: ChildWorkflowFailure): { type: string | undefined; reason: string } {
  let type: string | undefined;
  let reason = error.message;
  for (let e: Error | undefined = error.cause; e; e = (e as { cause?: Error }).cause) {
    if (e instanceof ApplicationFailure && e.type) type = e.type;
    reason = e instanceof ApplicationFailure && e.type ? `${e.type}: ${e.message}` : e.message || reason;
  }
  return { type, reason };
}
