import { createHash } from 'node:crypto';
import { contentTokens } from '../../policies/text.ts';
import type { Embedder } from './embedder.ts';

/**
 * The lexical fallback: feature hashing of word unigrams and bigrams into a unit vector.
 * Deterministic and dependency-free, for the embedded demo when no model is reachable and for
 * tests that need stable vectors — never for measuring retrieval quality. Lexical features are
 * symmetric, so passages and queries are embedded alike.
 */
export function createHashingEmbedder(dimension: number): Embedder {
  return {
    name: `lexical-hashing-${dimension}`,
    dimension,
    async embed(texts) {
      return texts.map((t) => hashVector(t, dimension));
    },
  };
}

export function hashVector(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  const tokens = contentTokens(text);
  const features = [...tokens, ...tokens.slice(1).map((t, i) => `${tokens[i]} ${t}`)];
  for (const f of features.length > 0 ? features : ['\u0000empty']) {
    const h = createHash('sha1').update(f).digest();
    const index = h.readUInt32BE(0) % dimension;
    v[index] = (v[index] ?? 0) + (h[4]! & 1 ? 1 : -1);
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  // Colliding features can cancel out; keep the vector non-zero so cosine distance is defined.
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}
