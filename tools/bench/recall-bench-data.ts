import { seededRandom } from '../../policies/random.ts';
import type { GeometryName } from '../choices.ts';
import { skewedTenantSizes } from './recall-bench-stats.ts';

/**
 * The recall benchmark's synthetic corpus. Embedding 100k texts with the local model on two
 * cores takes longer than the whole benchmark may, so vectors are drawn from a seeded generator
 * with the structure that makes filtered nearest-neighbour search hard: every tenant writes
 * about the same shared topics (so a small tenant's neighbourhood is crowded with other tenants'
 * notes), each with its own topic mix and a slight tenant-specific drift.
 *
 * A note's vector is normalize(topic + w_s·subtopic + w_t·tenant direction + noise), with unit
 * random directions and isotropic Gaussian noise of norm ≈ w_n. Queries are fresh draws from
 * the same tenant's distribution (a question about something the tenant has notes on).
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
export type { GeometryName };

interface CorpusOptions {
  notes: number;
  tenants: number;
  /** Share of all notes held by the smallest tenant. */
  smallestShare: number;
  /** Share of notes retired: their current version is 'retired', so recall must skip them. */
  retiredShare: number;
  dimension: number;
  seed: number;
  geometry: Geometry;
}

export interface TenantPlan {
  tenantId: string;
  notes: number;
  retired: number;
  /** Notes recall may return: active and current. */
  eligible: number;
}

export interface BenchQuery {
  tenant: number;
  vector: number[];
  /** Words of the subtopic, for the full-text rank the candidate query also computes. */
  text: string;
}

const TOPICS = 50;
const SUBTOPICS_PER_TOPIC = 20;
/** Before any plausible "now", so every note is valid when recall judges it. */
const VALID_FROM = '2025-01-01T00:00:00.000Z';
const RUN = 'bench-recall';

/** Columns of the note_versions COPY, in the order versionLines writes them. */
export const VERSION_COPY_COLUMNS = [
  'tenant_id',
  'note_id',
  'version',
  'status',
  'scope_level',
  'scope_key',
  'kind',
  'claim',
  'evidence',
  'source_kind',
  'confidence',
  'importance',
  'valid_from',
  'valid_until',
  'superseded_by',
  'source_count',
  'last_confirmed_at',
  'contradicted_at',
  'created_by_run',
  'embedding',
] as const;

/** Columns of the notes (current pointer) COPY, in the order pointerLines writes them. */
export const POINTER_COPY_COLUMNS = ['tenant_id', 'note_id', 'current_version', 'status'] as const;

const tenantIdOf = (index: number): string => `bench-t${String(index).padStart(2, '0')}`;
export const noteIdOf = (tenant: number, note: number): string => `${tenantIdOf(tenant)}-${note}`;
/** A tenant id no note carries, for the empty-tenant query. */
export const EMPTY_TENANT = 'bench-empty';

/** Standard normal draws from a uniform source (Box–Muller, both outputs used). */
function gaussianSource(uniform: () => number): () => number {
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

function normalize(v: Float64Array): Float64Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

function randomUnit(gauss: () => number, dimension: number): Float64Array {
  return normalize(Float64Array.from({ length: dimension }, () => gauss()));
}

/** Cumulative Zipf(1) weights over a tenant-specific permutation of the topics. */
function topicMix(uniform: () => number): Float64Array {
  const order = Array.from({ length: TOPICS }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(uniform() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const weights = new Float64Array(TOPICS);
  order.forEach((topic, rank) => (weights[topic] = 1 / (rank + 1)));
  let total = 0;
  return weights.map((w) => (total += w)).map((c) => c / total);
}

function pick(cdf: Float64Array, u: number): number {
  const i = cdf.findIndex((c) => u < c);
  return i === -1 ? cdf.length - 1 : i;
}

const csvQuote = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * pgvector's text form with five decimals, written as integers with an exponent ("12345e-5"):
 * formatting 40M numbers with toFixed would take longer than loading them.
 */
export function vectorText(vector: readonly number[]): string {
  return `[${vector.map((x) => `${Math.round(x * 1e5)}e-5`).join(',')}]`;
}

export class SyntheticCorpus {
  readonly tenants: TenantPlan[];
  private readonly dimension: number;
  private readonly seed: number;
  private readonly geometry: Geometry;
  private readonly topics: Float64Array[];
  private readonly subtopics: Float64Array[];
  private readonly tenantDirections: Float64Array[];
  private readonly tenantMixes: Float64Array[];
  /** retired[t][i]: note i of tenant t is retired. */
  private readonly retired: Uint8Array[];

  constructor(opts: CorpusOptions) {
    this.dimension = opts.dimension;
    this.seed = opts.seed;
    this.geometry = opts.geometry;
    const sizes = skewedTenantSizes(opts.notes, opts.tenants, opts.smallestShare);
    const gauss = gaussianSource(seededRandom(opts.seed));
    this.topics = Array.from({ length: TOPICS }, () => randomUnit(gauss, opts.dimension));
    this.subtopics = Array.from({ length: TOPICS * SUBTOPICS_PER_TOPIC }, () => randomUnit(gauss, opts.dimension));
    this.tenantDirections = sizes.map(() => randomUnit(gauss, opts.dimension));
    const mixRandom = seededRandom(opts.seed + 1);
    this.tenantMixes = sizes.map(() => topicMix(mixRandom));
    // Its own stream, so which notes are retired does not depend on how the vectors are drawn.
    const retireRandom = seededRandom(opts.seed + 2);
    this.retired = sizes.map((n) => Uint8Array.from({ length: n }, () => (retireRandom() < opts.retiredShare ? 1 : 0)));
    this.tenants = sizes.map((notes, t) => {
      const retired = (this.retired[t] as Uint8Array).reduce((a, b) => a + b, 0);
      return { tenantId: tenantIdOf(t), notes, retired, eligible: notes - retired };
    });
  }

  get versionRows(): number {
    return this.tenants.reduce((sum, t) => sum + t.notes + t.retired, 0);
  }

  /** True when note `noteId` of tenant index `tenant` is active and current (recall may return it). */
  isEligible(tenant: number, noteId: string): boolean {
    const prefix = `${tenantIdOf(tenant)}-`;
    if (!noteId.startsWith(prefix)) return false;
    const flags = this.retired[tenant];
    const i = Number(noteId.slice(prefix.length));
    return flags !== undefined && Number.isInteger(i) && i >= 0 && i < flags.length && flags[i] === 0;
  }

  /**
   * CSV lines for note_versions, `chunk` notes at a time, laid out as the store writes them: an
   * active version 1 per note, and for a retired note a version 2 with status 'retired' carrying
   * the same embedding (the store copies it while the claim is unchanged), so the index holds
   * vectors that recall must filter out.
   */
  *versionLines(chunk: number): Generator<string> {
    const gauss = gaussianSource(seededRandom(this.seed + 3));
    const uniform = seededRandom(this.seed + 4);
    let lines: string[] = [];
    for (const [t, plan] of this.tenants.entries()) {
      for (let i = 0; i < plan.notes; i++) {
        const { vector, topic, subtopic } = this.draw(t, gauss, uniform);
        const embedding = vectorText(vector);
        const claim = `Synthetic note ${i} of ${plan.tenantId}: topic ${topic} subtopic ${subtopic}.`;
        lines.push(this.versionLine(t, i, 1, 'active', claim, embedding));
        if (this.retired[t]?.[i] === 1) lines.push(this.versionLine(t, i, 2, 'retired', claim, embedding));
        if (lines.length >= chunk) {
          yield lines.join('');
          lines = [];
        }
      }
    }
    if (lines.length > 0) yield lines.join('');
  }

  /** CSV lines for notes: the current pointer (version 2 'retired' or version 1 'active'). */
  *pointerLines(chunk: number): Generator<string> {
    let lines: string[] = [];
    for (const [t, plan] of this.tenants.entries()) {
      for (let i = 0; i < plan.notes; i++) {
        const retired = this.retired[t]?.[i] === 1;
        lines.push(`${plan.tenantId},${noteIdOf(t, i)},${retired ? 2 : 1},${retired ? 'retired' : 'active'}\n`);
        if (lines.length >= chunk) {
          yield lines.join('');
          lines = [];
        }
      }
    }
    if (lines.length > 0) yield lines.join('');
  }

  /** `perTenant` queries for every tenant, interleaved round by round (round r: tenant 0, 1, …). */
  queries(perTenant: number): BenchQuery[] {
    const gauss = gaussianSource(seededRandom(this.seed + 5));
    const uniform = seededRandom(this.seed + 6);
    const out: BenchQuery[] = [];
    for (let r = 0; r < perTenant; r++) {
      for (let t = 0; t < this.tenants.length; t++) {
        const { vector, topic, subtopic } = this.draw(t, gauss, uniform);
        out.push({ tenant: t, vector, text: `topic ${topic} subtopic ${subtopic}` });
      }
    }
    return out;
  }

  private draw(
    tenant: number,
    gauss: () => number,
    uniform: () => number,
  ): { vector: number[]; topic: number; subtopic: number } {
    const topic = pick(this.tenantMixes[tenant] as Float64Array, uniform());
    const subtopic = Math.floor(uniform() * SUBTOPICS_PER_TOPIC);
    const t = this.topics[topic] as Float64Array;
    const s = this.subtopics[topic * SUBTOPICS_PER_TOPIC + subtopic] as Float64Array;
    const d = this.tenantDirections[tenant] as Float64Array;
    const { subtopic: ws, tenant: wt, noise } = this.geometry;
    const sigma = noise / Math.sqrt(this.dimension);
    const v = new Float64Array(this.dimension);
    for (let i = 0; i < v.length; i++)
      v[i] = (t[i] as number) + ws * (s[i] as number) + wt * (d[i] as number) + sigma * gauss();
    return { vector: Array.from(normalize(v)), topic, subtopic };
  }

  private versionLine(
    tenant: number,
    note: number,
    version: number,
    status: string,
    claim: string,
    embedding: string,
  ): string {
    const tenantId = tenantIdOf(tenant);
    const evidence = JSON.stringify([
      {
        recordId: syntheticUlid(tenant * 1_000_000 + note),
        objectKey: `raw/tenant=${tenantId}/date=2025-01-01/bench.jsonl.gz`,
        line: note + 1,
        contentHash: '0'.repeat(64),
      },
    ]);
    const values = [
      tenantId,
      noteIdOf(tenant, note),
      version,
      status,
      'user',
      `user-${note % 97}`,
      'fact',
      csvQuote(claim),
      csvQuote(evidence),
      'tool_fact',
      0.8,
      0.5,
      VALID_FROM,
      '',
      '',
      1,
      VALID_FROM,
      '',
      RUN,
      csvQuote(embedding),
    ];
    return `${values.join(',')}\n`;
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A valid ULID string derived from a number: evidence refs need one, and these are never resolved. */
export function syntheticUlid(n: number): string {
  let out = '';
  for (let rest = n; out.length < 16; rest = Math.floor(rest / 32)) out = CROCKFORD[rest % 32] + out;
  return `01J0000000${out}`;
}
