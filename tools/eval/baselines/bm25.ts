import { contentTokens } from '../../../policies/text.ts';
import type { Turn, TurnHit, TurnRetriever } from './turns.ts';

/** Okapi BM25 parameters (the usual defaults). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/**
 * Raw-turn full text: Okapi BM25 over every turn, tokenized as the rest of Nocturne tokenizes
 * (lower case, stopwords out). In memory: an inverted index of term → (turn, frequency).
 */
export function bm25(turns: readonly Turn[]): TurnRetriever {
  const postings = new Map<string, Array<[number, number]>>();
  const lengths = turns.map((t, i) => {
    const counts = new Map<string, number>();
    const tokens = contentTokens(t.text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      const list = postings.get(term);
      if (list) list.push([i, tf]);
      else postings.set(term, [[i, tf]]);
    }
    return tokens.length;
  });
  const avgLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
  const n = turns.length;
  return {
    async search(query, k) {
      const scores = new Map<number, number>();
      for (const term of new Set(contentTokens(query))) {
        const list = postings.get(term) ?? [];
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const [turn, tf] of list) {
          const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * (lengths[turn] as number)) / avgLength);
          scores.set(turn, (scores.get(turn) ?? 0) + (idf * tf * (BM25_K1 + 1)) / norm);
        }
      }
      return topK(
        [...scores].map(([turn, score]) => ({ turn, score })),
        k,
      );
    },
  };
}

/** Best k by score; ties go to the earlier turn so results are deterministic. */
export function topK(hits: TurnHit[], k: number): TurnHit[] {
  return hits.sort((a, b) => b.score - a.score || a.turn - b.turn).slice(0, k);
}
