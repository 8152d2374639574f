import type { Embedder } from '../../src/embeddings/embedder.ts';

/** The embedder, asking the model once per distinct request: offline tools ask the same questions over and over. */
export function memoized(inner: Embedder): Embedder {
  const seen = new Map<string, Promise<number[][]>>();
  return {
    ...inner,
    embed: (texts, options) => {
      const key = `${options?.kind ?? ''}\u0000${texts.join('\u0001')}`;
      const hit = seen.get(key) ?? inner.embed(texts, options);
      seen.set(key, hit);
      return hit;
    },
  };
}
