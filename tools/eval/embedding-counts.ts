import { createCachedEmbedder, type EmbeddingCache as VectorStore } from '../../src/embeddings/cached.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';

/** What an evaluation asked of the embedding model, and what a cache answered instead. */
export interface EmbeddingCounts {
  /** Passages that reached the model (record texts, claims, the dense baseline's turns on a miss). */
  passagesEmbedded: number;
  /** Passages the worker's embedder was asked for (what the model did not embed came from the cache). */
  passagesAsked: number;
  /** Questions that reached the model as queries. */
  queriesEmbedded: number;
  /** Questions asked, counted only when queries are cached too (`--cache-queries`). */
  queriesAsked: number;
}

/**
 * The worker's embedder for an evaluation: passages through `store` (kept between runs), every
 * text that reaches the model counted by kind. Questions are embedded on every run unless
 * `cacheQueries`: recall latency (Nocturne's and the dense baseline's) then no longer includes
 * embedding the question, so latencies of such runs compare only with each other.
 */
export function countedEmbedder(
  inner: Embedder,
  store: VectorStore | undefined,
  counts: EmbeddingCounts,
  cacheQueries = false,
): Embedder {
  const model: Embedder = {
    name: inner.name,
    dimension: inner.dimension,
    ...(inner.similarityFloor !== undefined ? { similarityFloor: inner.similarityFloor } : {}),
    async embed(texts, options = {}) {
      if (options.kind === 'query') counts.queriesEmbedded += texts.length;
      else counts.passagesEmbedded += texts.length;
      return inner.embed(texts, options);
    },
  };
  const cached = store ? createCachedEmbedder(model, store) : model;
  // The cache holds passages; questions go through it as "passages" of a model named apart,
  // whose embed asks the real model for queries.
  const queries =
    store && cacheQueries
      ? createCachedEmbedder(
          { ...model, name: `${model.name}#query`, embed: (t) => model.embed(t, { kind: 'query' }) },
          store,
        )
      : undefined;
  return {
    ...cached,
    embed(texts, options = {}) {
      if (options.kind !== 'query') {
        counts.passagesAsked += texts.length;
        return cached.embed(texts, options);
      }
      if (!queries) return cached.embed(texts, options);
      counts.queriesAsked += texts.length;
      return queries.embed(texts, { ...options, kind: 'passage' });
    },
  };
}

export const emptyCounts = (): EmbeddingCounts => ({
  passagesEmbedded: 0,
  passagesAsked: 0,
  queriesEmbedded: 0,
  queriesAsked: 0,
});
