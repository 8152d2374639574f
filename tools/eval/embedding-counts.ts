import { createCachedEmbedder, type EmbeddingCache as VectorStore } from '../../src/embeddings/cached.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';

/** What an evaluation asked of the embedding model, and what a cache answered instead. */
export interface EmbeddingCounts {
  /** Passages that reached the model (record texts, claims, the dense baseline's turns on a miss). */
  passagesEmbedded: number;
  /** Passages the worker's embedder was asked for (what the model did not embed came from the cache). */
  passagesAsked: number;
  /** Questions embedded as queries (never cached: recall latency includes embedding the question). */
  queriesEmbedded: number;
}

/**
 * The worker's embedder for an evaluation: passages through `store` (kept between runs), every
 * text that reaches the model counted by kind.
 */
export function countedEmbedder(inner: Embedder, store: VectorStore | undefined, counts: EmbeddingCounts): Embedder {
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
  return {
    ...cached,
    embed(texts, options = {}) {
      if (options.kind !== 'query') counts.passagesAsked += texts.length;
      return cached.embed(texts, options);
    },
  };
}

export const emptyCounts = (): EmbeddingCounts => ({ passagesEmbedded: 0, passagesAsked: 0, queriesEmbedded: 0 });
