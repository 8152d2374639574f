import type { GeometryName } from '../choices.ts';

/**
 * The draws behind the recall benchmark's synthetic vectors: a note's vector is
 * normalize(topic + w_s·subtopic + w_t·tenant direction + noise), with unit random directions
 * and isotropic Gaussian noise of norm ≈ w_n.
 */

/** Weights of a note vector's parts relative to its topic direction (norm 1). */
export interface Geometry {
  subtopic: number;
  tenant: number;
  noise: number;
}

/**
 * Cosine distances only matter relative to each other (HNSW compares distances), so a geometry
 * is its ratios. `e5` matches those of the stack's multilingual-e5-small on short notes:
 * paraphrases ≈ 0.06, same topic ≈ 0.14, unrelated ≈ 0.18, i.e. a near neighbour at a third of
 * the unrelated distance and a same-topic note at four fifths of it (noise² = 0.33·T and
 * subtopic² + noise² = 0.8·T for T = 1 + subtopic² + tenant² + noise²). `clustered` keeps
 * topics far apart (a same-topic note at a third of the unrelated distance), which is harsher
 * on the graph: regions it links poorly are where a search can get stuck.
 */
export const GEOMETRIES = {
  e5: { subtopic: 1.6, tenant: 0.3, noise: 1.34 },
  clustered: { subtopic: 0.5, tenant: 0.3, noise: 0.5 },
} as const satisfies Record<GeometryName, Geometry>;

/** Standard normal draws from a uniform source (Box–Muller, both outputs used). */
export function gaussianSource(uniform: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    const u = 1 - uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

export function normalize(v: Float64Array): Float64Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

export function randomUnit(gauss: () => number, dimension: number): Float64Array {
  return normalize(Float64Array.from({ length: dimension }, () => gauss()));
}

/** Cumulative Zipf(1) weights over a random permutation of `topics` topics (one per tenant). */
export function topicMix(uniform: () => number, topics: number): Float64Array {
  const order = Array.from({ length: topics }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(uniform() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const weights = new Float64Array(topics);
  order.forEach((topic, rank) => (weights[topic] = 1 / (rank + 1)));
  let total = 0;
  return weights.map((w) => (total += w)).map((c) => c / total);
}

/** The index whose cumulative weight first exceeds u (a uniform draw). */
export function pickFromCdf(cdf: Float64Array, u: number): number {
  const i = cdf.findIndex((c) => u < c);
  return i === -1 ? cdf.length - 1 : i;
}
