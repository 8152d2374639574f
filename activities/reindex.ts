import { FailureType } from '../src/contracts/failure-types.ts';
import { EmbeddingDimensionError, EmbeddingError } from '../src/embeddings/embedder.ts';
import {
  beginReindex,
  reembedPage,
  switchEmbeddings,
  type ReindexKey,
  type ReindexPageInput,
} from '../src/reindex/rebuild.ts';
import { asActivityFailure, heartbeats, permanentFailure, type ActivityDeps } from './deps.ts';
import { leased } from './tenant-operation.ts';

export type { ReindexKey, ReindexPageResult, ReindexStart, ReindexSwitch } from '../src/reindex/rebuild.ts';

/** Permanent embedding faults must not retry for an hour: the server's answer will not change. */
function classify(error: unknown): unknown {
  if (error instanceof EmbeddingDimensionError) return permanentFailure(error, FailureType.EmbeddingDimensionMismatch);
  if (error instanceof EmbeddingError) return permanentFailure(error, FailureType.EmbeddingInvalid);
  return asActivityFailure(error);
}

function classifiedReindex<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (error) {
      throw classify(error);
    }
  };
}

/** Every step of a rebuild holds the tenant's operation lease (taken by the first, renewed by the others). */
export function createReindexActivities(deps: ActivityDeps) {
  return {
    /** Starts (or restarts) a rebuild with the worker's embedder and marks it pending. */
    beginReindex: classifiedReindex(leased(deps, 'reindex', (input: ReindexKey) => beginReindex(deps, input))),
    /** Embeds one page of claims into the next generation; the live vectors are untouched. */
    reembedPage: classifiedReindex(
      leased(deps, 'reindex', (input: ReindexPageInput) => reembedPage(deps, input, heartbeats)),
    ),
    /** The switch, in one transaction; a retry after it committed changes nothing. */
    switchEmbeddings: classifiedReindex(
      leased(deps, 'reindex', (input: ReindexKey & { model: string; dimension: number }) =>
        switchEmbeddings(deps, input),
      ),
    ),
  };
}
