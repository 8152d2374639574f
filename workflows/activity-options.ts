import type { ActivityOptions } from '@temporalio/workflow';
import { FailureType } from '../src/contracts/failure-types.ts';

/**
 * Named presets for every activity call. Timeouts are explicit, retries capped; the
 * non-retryable types are the permanent faults activities raise on purpose.
 */
const NON_RETRYABLE: string[] = [
  FailureType.InvalidActivityInput,
  FailureType.NoteVersionConflict,
  FailureType.RunNotFound,
];

/** Short database bookkeeping: planning rows, run status. */
export const BOOKKEEPING: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '20s', maximumAttempts: 8, nonRetryableErrorTypes: NON_RETRYABLE },
};

/**
 * Reading a batch of episodes from the archive and proposing notes. Heartbeats (one per
 * archive object read) let a lost worker be noticed in 15 s instead of at the start-to-close timeout.
 */
export const REPLAY: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '2s',
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/**
 * One transaction per batch, idempotent on (run id, batch): safe to retry. A batch commits in
 * well under a second, so a worker lost mid-commit is retried after 30 s.
 */
export const COMMIT: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10, nonRetryableErrorTypes: NON_RETRYABLE },
};

/** Embedding changed claims through the embedding server, which may be slow to warm up. */
export const REINDEX: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '2s',
    maximumInterval: '1 minute',
    maximumAttempts: 8,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/**
 * Indexing raw records of a few archive objects: reading them and embedding their texts on an
 * embedding server that may be slow. Heartbeats per object and while a request is pending.
 */
export const RECORD_INDEX: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '2s',
    maximumInterval: '1 minute',
    maximumAttempts: 8,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};

/**
 * Embedding a run's claims after they committed (indexNoteVectorsWorkflow). Nothing waits on it
 * but recall quality, so it outlasts an embedding server that is down for a while (about three
 * hours of attempts) instead of failing; each attempt resumes where the last one stopped.
 */
export const NOTE_VECTORS: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '5s',
    maximumInterval: '5 minutes',
    maximumAttempts: 40,
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};
