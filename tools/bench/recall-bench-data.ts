import { seededRandom } from '../../policies/random.ts';
import { versionCsvLine, vectorText } from './recall-bench-csv.ts';
import { skewedTenantSizes } from './recall-bench-stats.ts';
import { gaussianSource, normalize, pickFromCdf, randomUnit, topicMix, type Geometry } from './recall-bench-vectors.ts';

/**
 * The recall benchmark's synthetic corpus. Embedding 100k texts with the local model on two
 * cores takes longer than the whole benchmark may, so vectors are drawn from a seeded generator
 * with the structure that makes filtered nearest-neighbour search hard: every tenant writes
 * about the same shared topics (so a small tenant's neighbourhood is crowded with other tenants'
 * notes), each with its own topic mix and a slight tenant-specific drift (see
 * recall-bench-vectors.ts). Queries are fresh draws from the same tenant's distribution (a
 * question about something the tenant has notes on).
 */

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

const tenantIdOf = (index: number): string => `bench-t${String(index).padStart(2, '0')}`;
export const noteIdOf = (tenant: number, note: number): string => `${tenantIdOf(tenant)}-${note}`;
/** A tenant id no note carries, for the empty-tenant query. */
export const EMPTY_TENANT = 'bench-empty';

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
    this.tenantMixes = sizes.map(() => topicMix(mixRandom, TOPICS));
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
        const claim = `Synthetic note ${i} of ${plan.tenantId}: topic ${topic} subtopic ${subtopic}.`;
        const row = {
          tenant: t,
          tenantId: plan.tenantId,
          note: i,
          noteId: noteIdOf(t, i),
          claim,
          embedding: vectorText(vector),
        };
        lines.push(versionCsvLine({ ...row, version: 1, status: 'active' }));
        if (this.retired[t]?.[i] === 1) lines.push(versionCsvLine({ ...row, version: 2, status: 'retired' }));
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
    const topic = pickFromCdf(this.tenantMixes[tenant] as Float64Array, uniform());
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
}
