import {
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ConsolidationActivities, ReplayBatchResult } from '../activities/index.ts';
import { seedFrom } from '../policies/random.ts';
import { ConsolidateInput, DEFAULT_BUDGET, type ResumeState } from '../src/contracts/workflow-inputs.ts';
import type { Budget, RunCounts } from '../src/contracts/run.ts';
import { STATUS, TENANT, TRIGGER } from '../src/contracts/search-attributes.ts';
import { COMMIT, BOOKKEEPING, REINDEX, REPLAY } from './activity-options.ts';
import {
  approveUpdate,
  progressQuery,
  rejectUpdate,
  type ApprovalInput,
  type ConsolidateProgress,
} from './consolidate-messages.ts';
import { indexWindowRecords } from './record-index-step.ts';
import { parseWorkflowInput } from './workflow-input.ts';
import { workflowNowIso, workflowNowMs } from './workflow-time.ts';

const bookkeeping = proxyActivities<ConsolidationActivities>(BOOKKEEPING);
const { replayBatch } = proxyActivities<ConsolidationActivities>(REPLAY);
const { commitBatch } = proxyActivities<ConsolidationActivities>(COMMIT);
const { reindexBatch } = proxyActivities<ConsolidationActivities>(REINDEX);

export interface ConsolidateResult {
  runId: string;
  status: 'completed' | 'partial' | 'rejected';
  counts: RunCounts;
  rejectedByRule: Record<string, number>;
  budget: Budget;
  spent: ResumeState['spent'];
  leftover: { batches: number; reason?: string };
  changedVersions: Array<{ noteId: string; fromVersion: number | null; toVersion: number }>;
  changedVersionsTruncated: boolean;
}

/** Plan → sample → replay in batches → propose → validate → commit → reindex → report (docs/ARCHITECTURE.md, "Workflows"). */
export async function consolidateTenantWorkflow(raw: ConsolidateInput): Promise<ConsolidateResult> {
  const input = parseWorkflowInput(ConsolidateInput, raw);
  const info = workflowInfo();
  const budget: Budget = { ...DEFAULT_BUDGET, ...input.budget };
  const state: ResumeState = input.resume
    ? copyState(input.resume)
    : freshState(info.workflowId, info.runId, workflowNowMs());
  const firstBatchHere = state.nextBatch;
  const progress: ConsolidateProgress = {
    runId: state.runId,
    phase: 'planning',
    batch: state.nextBatch,
    batches: 0,
    counts: state.counts,
    spent: state.spent,
  };
  setHandler(progressQuery, () => progress);
  const approval = registerApproval(progress);
  upsertSearchAttributes([
    { key: TENANT, value: input.tenantId },
    { key: TRIGGER, value: input.trigger },
    { key: STATUS, value: 'running' },
  ]);

  const plan = await bookkeeping.planRun({
    runId: state.runId,
    workflowId: info.workflowId,
    tenantId: input.tenantId,
    window: input.window,
    budget,
    trigger: input.trigger,
    mode: input.mode,
    seed: input.seed ?? seedFrom(state.runId),
    now: workflowNowIso(),
    ...(input.focus ? { focus: input.focus } : {}),
  });
  state.counts.sampled = plan.sampled;
  progress.batches = plan.batches;
  progress.phase = 'replaying';
  const deadline = state.startedAtMs + budget.deadlineSeconds * 1000;
  let stopReason: string | undefined;

  for (; state.nextBatch < plan.batches; state.nextBatch++) {
    progress.batch = state.nextBatch;
    stopReason = budgetStop(state, budget, deadline);
    if (stopReason) break;
    const batch = { runId: state.runId, tenantId: input.tenantId, batchNo: state.nextBatch };
    const replayed = await replayBatch({
      ...batch,
      window: input.window,
      llmTokensLeft: budget.maxLlmTokens - state.spent.llmTokens,
    });
    state.spent.llmTokens += replayed.llmTokens;
    if (state.spent.noteChanges + replayed.plannedChanges > budget.maxNoteChanges) {
      stopReason = 'note change budget: the next batch would exceed it';
      break;
    }
    accumulate(state, replayed);
    const committed = await commitBatch({ ...batch, actor: info.workflowId, staged: input.mode === 'staged' });
    state.counts.committed += committed.committed;
    state.counts.quarantined += committed.quarantined;
    state.spent.noteChanges += committed.committed + committed.quarantined;
    await reindexBatch(batch);
    state.spent.seconds = (workflowNowMs() - state.startedAtMs) / 1000;
    const doneHere = state.nextBatch + 1 - firstBatchHere;
    const historyFull = workflowInfo().continueAsNewSuggested || doneHere >= input.batchesPerExecution;
    if (historyFull && state.nextBatch + 1 < plan.batches) {
      await continueAsNew<typeof consolidateTenantWorkflow>({
        ...raw,
        resume: { ...state, nextBatch: state.nextBatch + 1 },
      });
    }
  }

  // The raw-record index follows the archive, not the note budget: a partial run indexes its window too.
  if (patched('index-raw-records')) {
    progress.phase = 'indexing';
    await indexWindowRecords(input.tenantId, input.window);
  }

  const leftover = { batches: plan.batches - state.nextBatch, ...(stopReason ? { reason: stopReason } : {}) };
  let status: ConsolidateResult['status'] = stopReason ? 'partial' : 'completed';
  if (input.mode === 'staged' && state.counts.committed + state.counts.quarantined > 0) {
    progress.phase = 'awaiting_approval';
    status = (await awaitApproval(approval, state.runId, input.tenantId, input.approvalTimeoutSeconds))
      ? status
      : 'rejected';
  }
  progress.phase = 'finishing';
  state.spent.seconds = (workflowNowMs() - state.startedAtMs) / 1000;
  const report = await bookkeeping.finishRun({
    runId: state.runId,
    tenantId: input.tenantId,
    status,
    counts: state.counts,
    spent: state.spent,
    rejectedByRule: state.rejectedByRule,
    leftover,
  });
  upsertSearchAttributes([{ key: STATUS, value: status }]);
  progress.phase = 'done';
  return {
    runId: state.runId,
    status,
    counts: state.counts,
    rejectedByRule: state.rejectedByRule,
    budget,
    spent: state.spent,
    leftover,
    ...report,
  };
}

function freshState(workflowId: string, runId: string, now: number): ResumeState {
  return {
    runId: `${workflowId}/${runId}`,
    nextBatch: 0,
    counts: { sampled: 0, replayed: 0, proposed: 0, rejected: 0, committed: 0, quarantined: 0 },
    spent: { episodes: 0, llmTokens: 0, noteChanges: 0, seconds: 0 },
    rejectedByRule: {},
    startedAtMs: now,
  };
}

/** A private copy: the loop mutates its state, the input must keep the resume point. */
function copyState(r: ResumeState): ResumeState {
  return { ...r, counts: { ...r.counts }, spent: { ...r.spent }, rejectedByRule: { ...r.rejectedByRule } };
}

function budgetStop(state: ResumeState, budget: Budget, deadline: number): string | undefined {
  if (workflowNowMs() >= deadline) return 'deadline reached';
  if (state.spent.llmTokens >= budget.maxLlmTokens && budget.maxLlmTokens > 0) return 'LLM token budget spent';
  if (state.spent.noteChanges >= budget.maxNoteChanges) return 'note change budget spent';
  return undefined;
}

function accumulate(state: ResumeState, r: ReplayBatchResult): void {
  state.counts.replayed += r.replayed;
  state.spent.episodes += r.episodes;
  state.counts.proposed += r.proposed;
  for (const [rule, n] of Object.entries(r.rejectedByRule)) {
    state.rejectedByRule[rule] = (state.rejectedByRule[rule] ?? 0) + n;
    state.counts.rejected += n;
  }
}

type Decision = { approve: boolean; by: ApprovalInput };

/** Handlers exist from the start so the UI shows them; they refuse until the run awaits approval. */
function registerApproval(progress: ConsolidateProgress): { decision?: Decision } {
  const box: { decision?: Decision } = {};
  const validator = (by: ApprovalInput) => {
    if (typeof by?.operator !== 'string' || by.operator.trim() === '')
      throw new Error('operator: required (who decides)');
    if (progress.phase !== 'awaiting_approval') throw new Error(`run is ${progress.phase}, not awaiting approval`);
    if (box.decision) throw new Error('run already decided');
  };
  setHandler(
    approveUpdate,
    (by) => {
      box.decision = { approve: true, by };
      return { accepted: true as const };
    },
    { validator },
  );
  setHandler(
    rejectUpdate,
    (by) => {
      box.decision = { approve: false, by };
      return { accepted: true as const };
    },
    { validator },
  );
  return box;
}

/** Waits for an operator's decision; no decision before the timeout means reject. */
async function awaitApproval(
  box: { decision?: Decision },
  runId: string,
  tenantId: string,
  timeoutSeconds: number,
): Promise<boolean> {
  upsertSearchAttributes([{ key: STATUS, value: 'awaiting_approval' }]);
  await condition(() => box.decision !== undefined, timeoutSeconds * 1000);
  const decision = box.decision;
  const approve = decision?.approve ?? false;
  const actor = decision?.by.operator ?? 'approval-timeout';
  const reason = decision?.by.reason ?? (decision ? '' : `no decision within ${timeoutSeconds}s`);
  await bookkeeping.resolveStaged({ runId, tenantId, decision: approve ? 'approve' : 'reject', actor, reason });
  return approve;
}
