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
import { z } from 'zod';
import type { ConsolidationActivities } from '../activities/index.ts';
import { Budget } from '../src/contracts/run.ts';
import { describeInputError } from '../src/contracts/workflow-inputs.ts';
import { BOOKKEEPING } from './activity-options.ts';
import { consolidateTenantWorkflow } from './consolidate-tenant.ts';
import { STATUS, TENANT, TRIGGER } from './search-attributes.ts';

const { listActiveTenants, findRunningConsolidation } = proxyActivities<ConsolidationActivities>(BOOKKEEPING);

/** Tenants started per execution before continuing as new: ~8 events each keeps a run far below 4,096. @default 200 */
export const TENANTS_PER_EXECUTION = 200;
/** A nightly result lists at most this many tenants; the totals count them all. @default 500 */
export const MAX_LISTED_TENANTS = 500;

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
const Outcome = z.enum(['completed', 'partial', 'rejected', 'skipped', 'failed']);
export type TenantOutcomeKind = z.infer<typeof Outcome>;

const TenantOutcome = z.object({
  tenantId: z.string(),
  workflowId: z.string(),
  outcome: Outcome,
  runId: z.string().optional(),
  committed: z.number().optional(),
  reason: z.string().optional(),
});
export type TenantOutcome = z.infer<typeof TenantOutcome>;

export const NightlyInput = z.object({
  /** The run date in child ids; absent → the workflow's (schedule's) start day, UTC. */
  date: Day.optional(),
  /** Consolidations running at once. @default 4 */
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Only tenants with archive partitions this many days back from `date`. @default 7 */
  activeDays: z.number().int().min(1).max(366).default(7),
  budget: Budget.partial().optional(),
  /** Tenants per page and per execution before continuing as new. @default 200 */
  tenantsPerExecution: z.number().int().min(1).max(1000).default(TENANTS_PER_EXECUTION),
  /** Carried across continue-as-new: tenants up to and including `after` are done. */
  carry: z
    .object({ after: z.string(), totals: z.record(Outcome, z.number().int()), results: z.array(TenantOutcome) })
    .optional(),
});
export type NightlyInput = z.input<typeof NightlyInput>;

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
  const parsed = NightlyInput.safeParse(raw ?? {});
  if (!parsed.success)
    throw ApplicationFailure.nonRetryable(
      `invalid nightlyConsolidationWorkflow input: ${describeInputError(parsed.error)}`,
      'InvalidWorkflowInput',
    );
  const input = parsed.data;
  const date = input.date ?? new Date().toISOString().slice(0, 10);
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
  budget?: z.infer<typeof Budget.partial>;
  focus?: { noteIds: string[] };
}

/** Child id from business keys: one consolidation per tenant and day per id. */
export const consolidationId = (tenantId: string, date: string): string => `consolidate/${tenantId}/${date}`;

/**
 * Never two consolidations of one tenant at once, whichever trigger started them. Two guards:
 * 1. Visibility: a running `consolidateTenantWorkflow` with NocturneTenant = tenant (any id —
 *    `nocturne run` uses `consolidate/<t>/manual-<ulid>`) → skipped. It catches every trigger but
 *    lags a start by milliseconds.
 * 2. Id: scheduled and conflict-triggered runs share the id `consolidate/<tenant>/<date>`, and
 *    Temporal refuses to start a child whose id is running — strongly consistent, so the race
 *    that (1) leaves open between the nightly and the monitor on the same day is closed.
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
    if (error instanceof ChildWorkflowFailure) return { ...base, outcome: 'failed', reason: failureReason(error) };
    throw error;
  }
}

/** The innermost typed failure (child → activity → application) says what went wrong. */
function failureReason(error: ChildWorkflowFailure): string {
  let reason = error.message;
  for (let e: Error | undefined = error.cause; e; e = (e as { cause?: Error }).cause) {
    reason = e instanceof ApplicationFailure && e.type ? `${e.type}: ${e.message}` : e.message || reason;
  }
  return reason;
}
