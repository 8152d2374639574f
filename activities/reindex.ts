import { ApplicationFailure } from '@temporalio/common';
import { readEmbeddingDimension, withTenant } from '../src/db/index.ts';
import {
  clearNextEmbeddings,
  countReindexable,
  markReindexPending,
  markReindexSwitched,
  promoteNextEmbeddings,
  selectEmbeddingProjection,
  selectReindexPage,
  writeNextEmbeddings,
} from '../src/db/reindex-queries.ts';
import { EmbeddingDimensionError, EmbeddingError } from '../src/embeddings/embedder.ts';
import { asActivityFailure, heartbeat, whileHeartbeating, type ActivityDeps } from './deps.ts';

export interface ReindexKey {
  tenantId: string;
  /** Identifies one rebuild across continue-as-new: `<workflow id>/<first run id>`. */
  reindexId: string;
}

export interface ReindexStart {
  model: string;
  dimension: number;
  /** Active and staged notes at the start (notes created later are embedded by their own run). */
  total: number;
  previousModel: string | null;
}

export interface ReindexPageResult {
  embedded: number;
  /** The cursor for the next page; null when this page was the last. */
  after: string | null;
}

export interface ReindexSwitch {
  switched: number;
  generation: number;
  previousModel: string | null;
}

/** Permanent embedding faults must not retry for an hour: the server's answer will not change. */
function classify(error: unknown): unknown {
  if (error instanceof EmbeddingDimensionError)
    return ApplicationFailure.create({
      message: error.message,
      type: 'EmbeddingDimensionMismatch',
      nonRetryable: true,
      cause: error,
    });
  if (error instanceof EmbeddingError)
    return ApplicationFailure.create({
      message: error.message,
      type: 'EmbeddingInvalid',
      nonRetryable: true,
      cause: error,
    });
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

export function createReindexActivities(deps: ActivityDeps) {
  const modelOf = () => ({ model: deps.embedder.name, dimension: deps.embedder.dimension });

  return {
    /**
     * Starts (or restarts) a rebuild with the worker's embedder: checks its dimension against the
     * store's column, drops vectors an abandoned rebuild left, and marks the rebuild pending.
     */
    beginReindex: classifiedReindex(async (input: ReindexKey): Promise<ReindexStart> => {
      const { model, dimension } = modelOf();
      const stored = await deps.db.session((conn) => readEmbeddingDimension(conn));
      if (stored !== undefined && stored !== dimension) {
        throw ApplicationFailure.nonRetryable(
          `embedder ${model} gives ${dimension}-dimension vectors but the note store holds vector(${stored}): a dimension change needs a new store (or a migration to a new column), not a reindex`,
          'EmbeddingDimensionMismatch',
        );
      }
      return withTenant(deps.db, input.tenantId, async (tx) => {
        const current = await selectEmbeddingProjection(tx);
        if (current?.pendingReindex !== input.reindexId) await clearNextEmbeddings(tx);
        await markReindexPending(tx, { tenantId: input.tenantId, model, reindexId: input.reindexId });
        return { model, dimension, total: await countReindexable(tx), previousModel: current?.model ?? null };
      });
    }),

    /** Embeds one page of claims as passages into the next generation; the live vectors are untouched. */
    reembedPage: classifiedReindex(
      async (
        input: ReindexKey & { model: string; after: string | null; limit: number },
      ): Promise<ReindexPageResult> => {
        if (deps.embedder.name !== input.model) {
          throw ApplicationFailure.nonRetryable(
            `this rebuild embeds with ${input.model} but this worker's embedder is ${deps.embedder.name}: workers changed model mid-rebuild; start a new reindex`,
            'EmbeddingModelChanged',
          );
        }
        const page = await withTenant(deps.db, input.tenantId, (tx) =>
          selectReindexPage(tx, { after: input.after, limit: input.limit }),
        );
        if (page.length === 0) return { embedded: 0, after: null };
        const vectors = await whileHeartbeating(
          deps.embedder.embed(
            page.map((p) => p.claim),
            { kind: 'passage' },
          ),
        );
        heartbeat({ embedded: page.length });
        await withTenant(deps.db, input.tenantId, (tx) =>
          writeNextEmbeddings(tx, {
            items: page.map((p, i) => ({ noteId: p.noteId, version: p.version, embedding: vectors[i] as number[] })),
          }),
        );
        const last = page[page.length - 1] as { noteId: string };
        return { embedded: page.length, after: page.length < input.limit ? null : last.noteId };
      },
    ),

    /** The switch, in one transaction; a retry after it committed changes nothing. */
    switchEmbeddings: classifiedReindex(
      async (input: ReindexKey & { model: string; dimension: number }): Promise<ReindexSwitch> =>
        withTenant(deps.db, input.tenantId, async (tx) => {
          const current = await selectEmbeddingProjection(tx);
          if (current?.lastReindex === input.reindexId && current.pendingReindex === null) {
            return { switched: 0, generation: current.generation, previousModel: current.model };
          }
          if (current?.pendingReindex !== input.reindexId) {
            throw ApplicationFailure.nonRetryable(
              `reindex ${input.reindexId} was superseded by ${current?.pendingReindex ?? 'nothing'} for tenant ${input.tenantId}; its vectors were dropped`,
              'ReindexSuperseded',
            );
          }
          const switched = await promoteNextEmbeddings(tx);
          const generation = await markReindexSwitched(tx, {
            tenantId: input.tenantId,
            model: input.model,
            dimension: input.dimension,
            reindexId: input.reindexId,
          });
          return { switched, generation, previousModel: current.model };
        }),
    ),
  };
}
