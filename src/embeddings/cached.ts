import { createHash } from 'node:crypto';
import type { EmbedOptions, Embedder } from './embedder.ts';

/** Where vectors are kept by the hash of the embedded string, per model. */
export interface EmbeddingCache {
  get(model: string, hashes: readonly string[]): Promise<Map<string, number[]>>;
  put(model: string, items: ReadonlyArray<{ hash: string; embedding: number[] }>): Promise<void>;
}

/** The cache key of a text: sha256 hex of its UTF-8 bytes. */
export const textHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * An embedder that embeds each distinct passage once: texts the cache holds for this model are
 * answered from it, the rest go to `inner` in one call (it batches) and are stored. Queries
 * pass straight through (each is asked once, and an asymmetric model embeds them differently).
 */
export function createCachedEmbedder(inner: Embedder, cache: EmbeddingCache): Embedder {
  return {
    name: inner.name,
    dimension: inner.dimension,
    ...(inner.similarityFloor !== undefined ? { similarityFloor: inner.similarityFloor } : {}),
    async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
      if (options.kind === 'query' || texts.length === 0) return inner.embed(texts, options);
      const hashes = texts.map(textHash);
      const known = await cache.get(inner.name, [...new Set(hashes)]);
      const missing = new Map<string, string>();
      hashes.forEach((h, i) => {
        if (!known.has(h)) missing.set(h, texts[i] as string);
      });
      if (missing.size > 0) {
        const vectors = await inner.embed([...missing.values()], options);
        const fresh = [...missing.keys()].map((hash, i) => ({ hash, embedding: vectors[i] as number[] }));
        await cache.put(inner.name, fresh);
        for (const f of fresh) known.set(f.hash, f.embedding);
      }
      return hashes.map((h) => known.get(h) as number[]);
    },
  };
}

/** The same embedder with `lane` (a tenant id) as every call's default lane in the fair queue. */
export function inLane(inner: Embedder, lane: string): Embedder {
  return {
    name: inner.name,
    dimension: inner.dimension,
    ...(inner.similarityFloor !== undefined ? { similarityFloor: inner.similarityFloor } : {}),
    embed: (texts, options = {}) => inner.embed(texts, { lane, ...options }),
  };
}
