import type { Embedder } from '../../../src/embeddings/embedder.ts';
import { topK } from './bm25.ts';
import type { EmbeddingCache } from './embedding-cache.ts';
import type { Turn, TurnRetriever } from './turns.ts';

/**
 * Raw-turn dense retrieval: every turn embedded once as a passage by the same model Nocturne
 * uses, the question as a query, exact cosine (vectors are unit length, so a dot product).
 * With a cache, turns embedded by an earlier run are read from disk instead.
 */
export async function dense(
  turns: readonly Turn[],
  embedder: Embedder,
  cache?: EmbeddingCache,
): Promise<TurnRetriever> {
  const texts = turns.map((t) => t.text);
  const vectors =
    turns.length === 0
      ? []
      : cache
        ? (await cache.passages(embedder, texts)).vectors
        : await embedder.embed(texts, { kind: 'passage' });
  return {
    async search(query, k) {
      const [q] = await embedder.embed([query], { kind: 'query' });
      const hits = vectors.map((v, turn) => ({ turn, score: dot(v, q as number[]) }));
      return topK(hits, k);
    },
  };
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
