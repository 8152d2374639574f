import { describe, expect, it } from 'vitest';
import { checkVectors, EmbeddingError } from '../../../src/embeddings/embedder.ts';
import { createHashingEmbedder } from '../../../src/embeddings/hashing.ts';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

describe('lexical hashing embedder', () => {
  const e = createHashingEmbedder(256);

  it('returns unit vectors of the configured dimension, deterministically', async () => {
    const [a, b] = await e.embed(['billing API returns cents', 'billing API returns cents']);
    expect(a).toHaveLength(256);
    expect(cosine(a!, a!)).toBeCloseTo(1, 10);
    expect(a).toEqual(b);
    expect(e.name).toMatch(/^lexical/);
  });

  it('puts texts sharing words closer than unrelated texts', async () => {
    const [a, b, c] = await e.embed([
      'billing API returns amounts in cents',
      'the billing API amounts are cents',
      'book an aisle seat to Oslo',
    ]);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
  });

  it('never returns a zero vector, even for empty text', async () => {
    const [v] = await e.embed(['']);
    expect(() => checkVectors([v!], 1, 256, 'test')).not.toThrow();
  });
});

describe('checkVectors', () => {
  it.each([
    [[[1, 0]], 2, 2, /returned 1 vectors for 2 inputs/],
    [[[1, 0, 0]], 1, 2, /dimension 3 for input 0, expected 2/],
    [[[0, 0]], 1, 2, /all-zero vector/],
    [[[Number.NaN, 1]], 1, 2, /non-finite/],
  ])('rejects %j', (vectors, expected, dim, message) => {
    expect(() => checkVectors(vectors, expected, dim, 'server')).toThrow(EmbeddingError);
    expect(() => checkVectors(vectors, expected, dim, 'server')).toThrow(message);
  });
});
