import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { RunCounts, Spent } from '../src/contracts/run.ts';

export type RunPhase = 'planning' | 'replaying' | 'indexing' | 'awaiting_approval' | 'finishing' | 'done';

export interface ConsolidateProgress {
  runId: string;
  phase: RunPhase;
  batch: number;
  batches: number;
  counts: RunCounts;
  spent: Spent;
}

export interface ApprovalInput {
  operator: string;
  reason?: string;
}

/** What an operator (UI or CLI) sees while a run is going. */
export const progressQuery = defineQuery<ConsolidateProgress>('progress');
/** Staged runs: activate the staged versions. */
export const approveUpdate = defineUpdate<{ accepted: true }, [ApprovalInput]>('approve');
/** Staged runs: discard the staged versions. */
export const rejectUpdate = defineUpdate<{ accepted: true }, [ApprovalInput]>('reject');
