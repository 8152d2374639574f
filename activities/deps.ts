import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ZodError } from 'zod';
import { FailureType } from '../src/contracts/failure-types.ts';
import { formatIssues } from '../src/contracts/format-issues.ts';
import { PermanentFailure, type Ports, type Progress } from '../src/ports.ts';

/** The narrow ports activities close over (the use cases' ports); `src/worker.ts` builds them, tests pass their own. */
export type ActivityDeps = Ports;

/** Heartbeats when running as an activity; a no-op when the function is called directly (CLI, tests). */
export function heartbeat(details?: unknown): void {
  if (inActivity()) Context.current().heartbeat(details);
}

/** How often {@link whileHeartbeating} heartbeats: well inside the 15 s heartbeat timeouts. @default 5000 */
export const KEEPALIVE_INTERVAL_MS = 5000;

/**
 * Heartbeats while one long call is pending (an embedding request on a slow CPU server, a model
 * writing notes): without it a call longer than the heartbeat timeout gets the attempt timed
 * out and retried while the first is still working, and the server's queue only grows.
 */
export async function whileHeartbeating<T>(
  work: Promise<T>,
  details?: unknown,
  intervalMs = KEEPALIVE_INTERVAL_MS,
): Promise<T> {
  if (!inActivity()) return work;
  const timer = setInterval(() => heartbeat(details), intervalMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

/** A use case's progress reported as this activity's heartbeats. */
export const heartbeats: Progress = { beat: heartbeat, during: (work, details) => whileHeartbeating(work, details) };

function inActivity(): boolean {
  try {
    Context.current();
    return true;
  } catch {
    return false;
  }
}

/**
 * Permanent faults become non-retryable failures with a stable type; anything else is rethrown
 * as it is and retried under the caller's preset. A ZodError would otherwise retry forever.
 */
export function asActivityFailure(error: unknown): unknown {
  if (error instanceof ZodError) {
    const detail = formatIssues(error.issues, { root: '', limit: 3 });
    return ApplicationFailure.nonRetryable(`invalid input: ${detail}`, FailureType.InvalidActivityInput, error.issues);
  }
  if (error instanceof PermanentFailure) return ApplicationFailure.nonRetryable(error.message, error.type);
  const name = (error as Error | undefined)?.name;
  if (name === 'NoteVersionConflictError')
    return ApplicationFailure.create({
      message: (error as Error).message,
      type: FailureType.NoteVersionConflict,
      nonRetryable: true,
      cause: error as Error,
    });
  // Waiting out an erasure inside an activity's retries would hold the run for an unknown time: fail clearly.
  if (name === 'TenantLockedError' || name === 'RunFencedError')
    return ApplicationFailure.create({
      message: (error as Error).message,
      type: name === 'TenantLockedError' ? FailureType.TenantLocked : FailureType.RunFencedByErasure,
      nonRetryable: true,
      cause: error as Error,
    });
  // A model that answers with the wrong dimension or zero vectors will do so again.
  if (name === 'EmbeddingError' || name === 'EmbeddingDimensionError')
    return ApplicationFailure.create({
      message: (error as Error).message,
      type: name,
      nonRetryable: true,
      cause: error as Error,
    });
  if (name === 'ArchiveManifestError')
    return ApplicationFailure.create({
      message: (error as Error).message,
      type: FailureType.ArchiveManifestInvalid,
      nonRetryable: true,
      cause: error as Error,
    });
  return error;
}

/** Wraps an activity so its permanent faults are classified before they reach Temporal. */
export function classified<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (error) {
      throw asActivityFailure(error);
    }
  };
}
