import {
  ContinueAsNew,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import { seedFrom } from '../policies/random.ts';
import { ConsolidateInput, DEFAULT_BUDGET, type ResumeState } from '../src/contracts/workflow-inputs.ts';
import type { Budget, RunCounts } from '../src/contracts/run.ts';
import { STATUS, TENANT, TRIGGER } from '../src/contracts/search-attributes.ts';
import { BOOKKEEPING, REINDEX, REPLAY } from './activity-options.ts';
import { awaitApproval, registerApproval } from './consolidate-approval.ts';
import { accumulate, budgetStop, commitOrReplan, copyState, freshState, recordFailure } from './consolidate-steps.ts';
import { emptyPublished, publishChanges, publishNotice, type RunHeading } from './consolidate-details.ts';
import { progressQuery, type ConsolidateProgress } from './consolidate-messages.ts';
import { startRunVectors, type RunVectors } from './index-note-vectors.ts';
import { freeOperationLease, OPERATION_LEASE_PATCH } from './operation-lease.ts';
import { indexWindowRecords, startRunRecordIndex } from './record-index-step.ts';
import { waitForSteps, type RunStep, type RunStepReport } from './run-steps.ts';
import { parseWorkflowInput } from './workflow-input.ts';
import { workflowNowIso, workflowNowMs } from './workflow-time.ts';

const bookkeeping = proxyActivities<ConsolidationActivities>(BOOKKEEPING);
const { replayBatch } = proxyActivities<ConsolidationActivities>(REPLAY);
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
  /** The run's claims are embedded by a step of their own after they commit (absent in runs from before it). */
  vectors?: RunVectors;
  /** The window's raw records are indexed by a step of its own (absent in runs from before it). */
  records?: RunStepReport;
}

type Parsed = ReturnType<typeof ConsolidateInput.parse>;

/** Plan → sample → replay in batches → propose → validate → commit → reindex → report (docs/ARCHITECTURE.md, "Workflows"). */
export async function consolidateTenantWorkflow(raw: ConsolidateInput): Promise<ConsolidateResult> {
  const input = parseWorkflowInput(ConsolidateInput, raw);
  const info = workflowInfo();
  const state: ResumeState = input.resume
    ? copyState(input.resume)
    : freshState(info.workflowId, info.runId, workflowNowMs());
  // planRun takes the tenant's operation lease, each replay and commit renews it; it is freed
  // after the last commit (what follows overlaps other operations) or when the run fails.
  const leased = patched(OPERATION_LEASE_PATCH);
  try {
    return await consolidate(raw, input, state, leased);
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    // A run that fails must not stay `running` in its row (nor in the UI's NocturneStatus).
    if (patched('fail-run-row')) await recordFailure(input, state, error);
    if (leased) await freeOperationLease(input.tenantId);
    throw error;
  }
}

async function consolidate(
  raw: ConsolidateInput,
  input: Parsed,
  state: ResumeState,
  leased: boolean,
): Promise<ConsolidateResult> {
  const info = workflowInfo();
  const budget: Budget = { ...DEFAULT_BUDGET, ...input.budget };
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
  const heading: RunHeading = {
    tenantId: input.tenantId,
    trigger: input.trigger,
    runId: state.runId,
    workflowId: info.workflowId,
  };
  const published = state.published ?? emptyPublished();
  state.published = published;
  // Notes commit without waiting for their vectors: the batch loop no longer embeds; one step
  // after the loop does (indexNoteVectorsWorkflow).
  const vectorsAfterCommit = patched('vectors-after-commit');

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
    const commit = { ...batch, actor: info.workflowId, staged: input.mode === 'staged' };
    const committed = await commitOrReplan(commit, input, state, budget);
    state.counts.committed += committed.committed;
    state.counts.quarantined += committed.quarantined;
    state.spent.noteChanges += committed.committed + committed.quarantined;
    if (committed.changes) publishChanges(published, heading, committed.changes, patched('publish-changed-notes'));
    if (!vectorsAfterCommit) await reindexBatch(batch);
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

  // The run's notes are written: embedding them, indexing the window's raw records, awaiting an
  // approval and reporting overlap every other operation (policies/tenant-operations.ts).
  if (leased) await freeOperationLease(input.tenantId);
  // A run that wrote no version has nothing to embed.
  const wrote = state.counts.committed + state.counts.quarantined > 0;
  const vectorsStep = vectorsAfterCommit && wrote ? await startRunVectors(input.tenantId, state.runId) : undefined;
  let recordsStep: RunStep | undefined;
  // The raw-record index follows the archive, not the note budget: a partial run indexes its window too.
  if (patched('index-raw-records')) {
    progress.phase = 'indexing';
    // Only recall needs the record index: a step of its own indexes it, beside the claims' vectors.
    if (patched('record-index-step'))
      recordsStep = await startRunRecordIndex(input.tenantId, state.runId, input.window);
    else await indexWindowRecords(input.tenantId, input.window);
  }
  let vectors: RunVectors | undefined;
  if (recordsStep) {
    await waitForSteps(vectorsStep ? [vectorsStep, recordsStep] : [recordsStep], input.vectorWaitSeconds);
    vectors = vectorsStep?.report();
  } else if (vectorsStep) vectors = await vectorsStep.wait(input.vectorWaitSeconds);

  const leftover = { batches: plan.batches - state.nextBatch, ...(stopReason ? { reason: stopReason } : {}) };
  let status: ConsolidateResult['status'] = stopReason ? 'partial' : 'completed';
  if (input.mode === 'staged' && state.counts.committed + state.counts.quarantined > 0) {
    progress.phase = 'awaiting_approval';
    publishNotice(published, heading, approvalNotice(info.workflowId));
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
  publishNotice(published, heading, `**${status}**`);
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
    ...(vectors ? { vectors } : {}),
    ...(recordsStep ? { records: recordsStep.report() } : {}),
  };
}

const approvalNotice = (workflowId: string) =>
  `**Awaiting approval.** Decide with \`nocturne approve ${workflowId}\` or \`nocturne reject ${workflowId} --reason …\` (or send the \`approve\`/\`reject\` update).`;
