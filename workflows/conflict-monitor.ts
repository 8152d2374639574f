import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { utcDay } from '../src/contracts/workflow-ids.ts';
import {
  ConflictMonitorInput,
  ConflictReport,
  MAX_FOCUS_NOTES,
  type TenantOutcome,
} from '../src/contracts/workflow-inputs.ts';
import { consolidateExclusively } from './nightly-consolidation.ts';
import { parseWorkflowInput } from './workflow-input.ts';
import { workflowNowMs } from './workflow-time.ts';

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
  const { tenantId, threshold, cooldownSeconds, signalsPerExecution, busyRetrySeconds, carry } = parseWorkflowInput(
    ConflictMonitorInput,
    raw,
  );
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
      date: utcDay(workflowNowMs()),
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
