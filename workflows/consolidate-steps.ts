import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  proxyActivities,
  patched,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CommitResult, ConsolidationActivities, ReplayBatchResult } from '../activities/index.ts';
import { FailureType } from '../src/contracts/failure-types.ts';
import type { Budget } from '../src/contracts/run.ts';
import { STATUS } from '../src/contracts/search-attributes.ts';
import type { ConsolidateInput, ResumeState } from '../src/contracts/workflow-inputs.ts';
import { BOOKKEEPING, COMMIT, REPLAY } from './activity-options.ts';
import { workflowNowMs } from './workflow-time.ts';

// The steps of consolidateTenantWorkflow around its loop: the run's carried state, a commit that
// re-plans once on a version conflict, and the failure record.

const bookkeeping = proxyActivities<ConsolidationActivities>(BOOKKEEPING);
const { replayBatch } = proxyActivities<ConsolidationActivities>(REPLAY);
const { commitBatch } = proxyActivities<ConsolidationActivities>(COMMIT);

type Parsed = ReturnType<typeof ConsolidateInput.parse>;

/**
 * Commits a replayed batch. When a note it changes moved since the replay (an operator's
 * rollback landed in between), the batch is planned again once on the notes as they are now
 * and that plan is committed; a second conflict fails the run.
 */
export async function commitOrReplan(
  commit: { runId: string; tenantId: string; batchNo: number; actor: string; staged: boolean },
  input: Parsed,
  state: ResumeState,
  budget: Budget,
): Promise<CommitResult> {
  try {
    return await commitBatch(commit);
  } catch (error) {
    if (!isVersionConflict(error) || !patched('replan-on-conflict')) throw error;
    const replanned = await replayBatch({
      runId: commit.runId,
      tenantId: commit.tenantId,
      batchNo: commit.batchNo,
      window: input.window,
      llmTokensLeft: budget.maxLlmTokens - state.spent.llmTokens,
      replan: true,
    });
    state.spent.llmTokens += replanned.llmTokens;
    return commitBatch({ ...commit, replan: true });
  }
}

function isVersionConflict(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === FailureType.NoteVersionConflict
  );
}

/** Marks the run row and the UI's status `failed`; a run that failed before its row existed has nothing to mark. */
export async function recordFailure(input: Parsed, state: ResumeState, error: unknown): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    upsertSearchAttributes([{ key: STATUS, value: 'failed' }]);
    const reason = error instanceof Error ? error.message : String(error);
    await bookkeeping
      .finishRun({
        runId: state.runId,
        tenantId: input.tenantId,
        status: 'failed',
        counts: state.counts,
        spent: state.spent,
        rejectedByRule: state.rejectedByRule,
        leftover: { batches: 0, reason: `failed: ${reason}`.slice(0, 500) },
      })
      .catch(() => undefined);
  });
}

export function freshState(workflowId: string, runId: string, now: number): ResumeState {
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
export function copyState(r: ResumeState): ResumeState {
  return { ...r, counts: { ...r.counts }, spent: { ...r.spent }, rejectedByRule: { ...r.rejectedByRule } };
}

export function budgetStop(state: ResumeState, budget: Budget, deadline: number): string | undefined {
  if (workflowNowMs() >= deadline) return 'deadline reached';
  if (state.spent.llmTokens >= budget.maxLlmTokens && budget.maxLlmTokens > 0) return 'LLM token budget spent';
  if (state.spent.noteChanges >= budget.maxNoteChanges) return 'note change budget spent';
  return undefined;
}

export function accumulate(state: ResumeState, r: ReplayBatchResult): void {
  state.counts.replayed += r.replayed;
  state.spent.episodes += r.episodes;
  state.counts.proposed += r.proposed;
  for (const [rule, n] of Object.entries(r.rejectedByRule)) {
    state.rejectedByRule[rule] = (state.rejectedByRule[rule] ?? 0) + n;
    state.counts.rejected += n;
  }
}
