import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import { TenantId } from '../src/contracts/ids.ts';
import { describeInputError } from '../src/contracts/workflow-inputs.ts';
import { consolidateExclusively, type TenantOutcome } from './nightly-consolidation.ts';
import { workflowNowMs } from './workflow-time.ts';

/** Signals handled per execution before continuing as new (each is an event or two). @default 500 */
export const SIGNALS_PER_EXECUTION = 500;
/** A focused run looks at most this many note ids (the consolidate input's limit). @default 1000 */
export const MAX_FOCUS_NOTES = 1000;
/** When another consolidation of the tenant is running, try again after this long. @default 60 */
export const BUSY_RETRY_SECONDS = 60;

export const ConflictReport = z.object({
  noteIds: z.array(z.string().min(1).max(200)).min(1).max(MAX_FOCUS_NOTES),
  reason: z.string().max(2000).optional(),
});
export type ConflictReport = z.infer<typeof ConflictReport>;

export const ConflictMonitorInput = z.object({
  tenantId: TenantId,
  /** Conflicts that trigger a focused consolidation. @default 5 */
  threshold: z.number().int().min(1).max(10_000).default(5),
  /** After a focused run, no other starts for this long (conflicts still count). @default 3600 */
  cooldownSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(3600),
  /** Continue as new after this many signals. @default 500 */
  signalsPerExecution: z.number().int().min(1).max(5000).default(SIGNALS_PER_EXECUTION),
  /** While another consolidation of the tenant runs, look again after this long. @default 60 */
  busyRetrySeconds: z.number().int().min(1).max(86400).default(BUSY_RETRY_SECONDS),
  /** Carried across continue-as-new. */
  carry: z
    .object({
      count: z.number().int().min(0),
      pendingNoteIds: z.array(z.string()),
      totalConflicts: z.number().int().min(0),
      runs: z.number().int().min(0),
      cooldownUntilMs: z.number().int().optional(),
      lastRun: z.custom<TenantOutcome>().optional(),
    })
    .optional(),
});
export type ConflictMonitorInput = z.input<typeof ConflictMonitorInput>;

export interface ConflictProgress {
  tenantId: string;
  phase: 'counting' | 'running' | 'cooldown' | 'waiting_for_other_run';
  /** Conflicts since the last focused run started. */
  count: number;
  threshold: number;
  pendingNoteIds: string[];
  totalConflicts: number;
  runs: number;
  cooldownUntil?: string;
  lastRun?: TenantOutcome;
  signalsThisExecution: number;
}

export const conflictSignal = defineSignal<[ConflictReport]>('conflict');
export const conflictProgressQuery = defineQuery<ConflictProgress>('progress');

/**
 * One per tenant (`conflicts/<tenant>`), fed by `reportConflict` through signal-with-start. Counts
 * conflicts; at the threshold it runs a consolidation focused on the reported notes, then cools
 * down. The count and note ids outlive continue-as-new; a report that fails validation is
 * dropped (a signal cannot be refused) and counted nowhere.
 */
export async function conflictMonitorWorkflow(raw: ConflictMonitorInput): Promise<void> {
  const parsed = ConflictMonitorInput.safeParse(raw);
  if (!parsed.success)
    throw ApplicationFailure.nonRetryable(
      `invalid conflictMonitorWorkflow input: ${describeInputError(parsed.error)}`,
      'InvalidWorkflowInput',
    );
  const { tenantId, threshold, cooldownSeconds, signalsPerExecution, busyRetrySeconds, carry } = parsed.data;
  const pending = new Set(carry?.pendingNoteIds ?? []);
  const p: ConflictProgress = {
    tenantId,
    phase: 'counting',
    count: carry?.count ?? 0,
    threshold,
    pendingNoteIds: [],
    totalConflicts: carry?.totalConflicts ?? 0,
    runs: carry?.runs ?? 0,
    signalsThisExecution: 0,
    ...(carry?.lastRun ? { lastRun: carry.lastRun } : {}),
  };
  let cooldownUntilMs = carry?.cooldownUntilMs;
  setHandler(conflictSignal, (report) => {
    p.signalsThisExecution++;
    const ok = ConflictReport.safeParse(report);
    if (!ok.success) return;
    p.count++;
    p.totalConflicts++;
    for (const id of ok.data.noteIds) if (pending.size < MAX_FOCUS_NOTES) pending.add(id);
  });
  setHandler(conflictProgressQuery, () => ({
    ...p,
    pendingNoteIds: [...pending],
    ...(cooldownUntilMs !== undefined ? { cooldownUntil: new Date(cooldownUntilMs).toISOString() } : {}),
  }));
  const shouldContinue = () => workflowInfo().continueAsNewSuggested || p.signalsThisExecution >= signalsPerExecution;

  for (;;) {
    const coolingMs = cooldownUntilMs === undefined ? 0 : cooldownUntilMs - workflowNowMs();
    if (coolingMs > 0) {
      p.phase = 'cooldown';
      if (await condition(shouldContinue, coolingMs)) break;
      cooldownUntilMs = undefined;
    }
    p.phase = 'counting';
    await condition(() => p.count >= threshold || shouldContinue());
    if (p.count < threshold) break;
    p.phase = 'running';
    const noteIds = [...pending];
    const countedAtStart = p.count;
    const outcome = await consolidateExclusively({
      tenantId,
      date: new Date().toISOString().slice(0, 10),
      trigger: 'conflict',
      focus: { noteIds },
    });
    p.lastRun = outcome;
    if (outcome.outcome === 'skipped') {
      // Another run of this tenant holds it: keep the count and the notes, try again later.
      p.phase = 'waiting_for_other_run';
      if (await condition(shouldContinue, busyRetrySeconds * 1000)) break;
      continue;
    }
    p.runs++;
    // Conflicts reported while the run went on stay counted for the next one.
    p.count -= countedAtStart;
    for (const id of noteIds) pending.delete(id);
    cooldownUntilMs = workflowNowMs() + cooldownSeconds * 1000;
  }

  await condition(allHandlersFinished);
  await continueAsNew<typeof conflictMonitorWorkflow>({
    tenantId,
    threshold,
    cooldownSeconds,
    signalsPerExecution,
    busyRetrySeconds,
    carry: {
      count: p.count,
      pendingNoteIds: [...pending],
      totalConflicts: p.totalConflicts,
      runs: p.runs,
      ...(cooldownUntilMs !== undefined ? { cooldownUntilMs } : {}),
      ...(p.lastRun ? { lastRun: p.lastRun } : {}),
    },
  });
}
