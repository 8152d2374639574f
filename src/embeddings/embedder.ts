/** The embedding port: claims in, unit vectors of a fixed dimension out, in input order. */
export interface Embedder {
  /** Named in every output that used it, so a fallback is never silent. */
  readonly name: string;
  readonly dimension: number;
  embed(texts: readonly string[]): Promise<number[][]>;
}

export class EmbeddingError extends Error {
  override name = 'EmbeddingError';
}

/** Rejects the failure modes servers are known for: wrong dimension, zero or non-finite vectors. */
export function checkVectors(vectors: readonly number[][], expected: number, dimension: number, source: string): void {
  if (vectors.length !== expected) throw new EmbeddingError(`${source} returned ${vectors.length} vectors for ${expected} inputs`);
  vectors.forEach((v, i) => {
    if (v.length !== dimension) throw new EmbeddingError(`${source} returned dimension ${v.length} for input ${i}, expected ${dimension}`);
    if (!v.every(Number.isFinite)) throw new EmbeddingError(`${source} returned a non-finite value for input ${i}`);
    if (v.every((x) => x === 0)) throw new EmbeddingError(`${source} returned an all-zero vector for input ${i}`);
  });
}
