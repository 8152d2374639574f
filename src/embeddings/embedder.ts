/**
 * What a text is embedded as. Asymmetric models (e5, BGE with instructions) embed stored
 * passages and search queries differently; symmetric ones ignore it.
 */
export type EmbedKind = 'passage' | 'query';

export interface EmbedOptions {
  /** Claims are stored as passages; recall embeds its query as `query`. @default 'passage' */
  kind?: EmbedKind;
  /**
   * Whose work this is, usually the tenant id. Requests of different lanes take turns on the
   * servers (FairQueue), so one tenant's large batch does not hold up another's. @default 'default'
   */
  lane?: string;
}

/** The embedding port: texts in, unit vectors of a fixed dimension out, in input order. */
export interface Embedder {
  /** Named in every output that used it, so a fallback is never silent. */
  readonly name: string;
  readonly dimension: number;
  /** Cosine at which this model's vectors mean "unrelated" (see defaultSimilarityFloor in config). @default 0 */
  readonly similarityFloor?: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

/** A permanent fault of the embedding server's answer: retrying the same request will not heal it. */
export class EmbeddingError extends Error {
  override name = 'EmbeddingError';
}

/** The server answers with another dimension than configured: a configuration error, never transient. */
export class EmbeddingDimensionError extends EmbeddingError {
  override name = 'EmbeddingDimensionError';
  constructor(
    readonly source: string,
    readonly actual: number,
    readonly expected: number,
    index: number,
  ) {
    super(
      `${source} returned dimension ${actual} for input ${index}, expected ${expected} (NOCTURNE_EMBEDDING_DIM / the model do not match)`,
    );
  }
}

/** Transient faults outlasted every retry; the original is the `cause`. An activity may retry later. */
export class EmbeddingUnavailableError extends Error {
  override name = 'EmbeddingUnavailableError';
}

/** Rejects the failure modes servers are known for: wrong dimension, zero or non-finite vectors. */
export function checkVectors(vectors: readonly number[][], expected: number, dimension: number, source: string): void {
  if (vectors.length !== expected)
    throw new EmbeddingError(`${source} returned ${vectors.length} vectors for ${expected} inputs`);
  vectors.forEach((v, i) => {
    if (v.length !== dimension) throw new EmbeddingDimensionError(source, v.length, dimension, i);
    if (!v.every(Number.isFinite)) throw new EmbeddingError(`${source} returned a non-finite value for input ${i}`);
    if (v.every((x) => x === 0)) {
      throw new EmbeddingError(
        `${source} returned an all-zero vector for input ${i} (a server answering base64 to a float client does this)`,
      );
    }
  });
}
