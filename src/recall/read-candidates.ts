import { withTenant, type Db, type Queryable } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import {
  indexScanSettings,
  selectProjectionModel,
  selectTextCandidates,
  selectVectorCandidates,
  setIndexScanSettings,
  selectCurrentVectorChannel,
  type CandidateParams,
  type CandidateRow,
} from './queries.ts';
import type { RecordChannels } from './fuse.ts';
import { selectRecordTextCandidates, selectRecordVectorCandidates, type RecordParams } from './record-queries.ts';

/** How the vector channel was read: the index, an exact scan, or not at all (another model's vectors). */
export type VectorPath = 'hnsw' | 'exact' | 'none';

export interface CandidateRead {
  vector: CandidateRow[];
  text: CandidateRow[];
  vectorPath: VectorPath;
  warning: string | undefined;
}

/**
 * Both candidate channels in one tenant transaction, so row-level security scopes every read
 * to the tenant even if a predicate were missing.
 */
export async function readCandidates(db: Db, embedder: Embedder, p: CandidateParams): Promise<CandidateRead> {
  return withTenant(db, p.tenantId, async (tx) => {
    const text = await selectTextCandidates(tx, p);
    const model = await selectProjectionModel(tx, p.tenantId);
    if (model !== null && model !== embedder.name) {
      // Vectors of another model are not comparable with this query's: full text only until a reindex switches.
      return {
        vector: [],
        text: text.map((r) => ({ ...r, distance: null })),
        vectorPath: 'none' as const,
        warning: `vector similarity skipped: this tenant's notes are embedded by ${model}, the query by ${embedder.name} (reindex to switch)`,
      };
    }
    const read = await readVectorChannel(tx, p);
    return { vector: read.rows, text, vectorPath: read.path, warning: undefined };
  });
}

/**
 * Up to this many projection rows, a tenant's vector channel is an exact scan: at this size it
 * costs about what the index does, and it never depends on which larger tenant shares the
 * tenant's partition (whose rows an index scan would walk past).
 */
export const EXACT_READ_UP_TO = 2000;

export interface VectorRead {
  rows: CandidateRow[];
  path: 'hnsw' | 'exact';
  /** The first read's rows: the index read's, before any fallback. */
  firstRead: CandidateRow[];
  fellBack: boolean;
}

/**
 * The vector channel inside the caller's tenant transaction: an exact scan for a small tenant,
 * else the HNSW index with iterative scan bounds, and the exact scan again when the index
 * returned fewer rows than asked. A current read is one statement (selectCurrentVectorChannel).
 */
export async function readVectorChannel(tx: Queryable, p: CandidateParams): Promise<VectorRead> {
  // ef_search twice the rows read: at ef_search = limit a tenant's graph search now and then
  // settled in the wrong region and returned none of the true top 10 (docs/BENCHMARKS.md).
  const efSearch = 2 * p.limit;
  let first: CandidateRow[];
  if (p.pointInTime) {
    await setIndexScanSettings(tx, efSearch);
    first = await selectVectorCandidates(tx, p, false);
  } else {
    const read = await selectCurrentVectorChannel(tx, p, { efSearch, exactUpTo: EXACT_READ_UP_TO });
    if (read.exact) return { rows: read.rows, path: 'exact', firstRead: read.rows, fellBack: false };
    first = read.rows;
  }
  // Fewer rows than asked means the index scan gave up (hnsw.max_scan_tuples) or the tenant
  // has fewer eligible notes: an exact scan tells the two apart and never misses a row.
  if (first.length >= p.limit) return { rows: first, path: 'hnsw', firstRead: first, fellBack: false };
  return { rows: await selectVectorCandidates(tx, p, true), path: 'exact', firstRead: first, fellBack: true };
}

/** Union of the two channels by (note, version); both carry distance and rank, so either copy will do. */
export function mergeCandidates(a: CandidateRow[], b: CandidateRow[]): CandidateRow[] {
  const byKey = new Map<string, CandidateRow>();
  for (const row of [...a, ...b]) byKey.set(`${row.version.noteId}\u0000${row.version.version}`, row);
  return [...byKey.values()];
}

/**
 * The record index's two channels, each in a tenant transaction of its own so they run at once
 * (recall waits for the slower, not the sum): nearest records by vector (only those embedded by
 * the query's model; the index scan settings are set with the tenant) and full-text matches.
 */
export async function readRecordCandidates(db: Db, p: RecordParams): Promise<RecordChannels> {
  const [text, vector] = await Promise.all([
    withTenant(db, p.tenantId, (tx) => selectRecordTextCandidates(tx, p)),
    withTenant(
      db,
      p.tenantId,
      async (tx) => {
        const rows = await selectRecordVectorCandidates(tx, p, false);
        return rows.length < p.limit ? selectRecordVectorCandidates(tx, p, true) : rows;
      },
      { settings: indexScanSettings(p.limit) },
    ),
  ]);
  return { vector, text };
}
