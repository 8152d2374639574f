import { withTenant, type Db } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import {
  selectProjectionModel,
  selectTextCandidates,
  selectVectorCandidates,
  setIndexScanSettings,
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
    await setIndexScanSettings(tx, p.limit);
    let vector = await selectVectorCandidates(tx, p, false);
    let vectorPath: 'hnsw' | 'exact' = 'hnsw';
    // Fewer rows than asked means the index scan gave up (hnsw.max_scan_tuples) or the tenant
    // has fewer eligible notes: an exact scan tells the two apart and never misses a row.
    if (vector.length < p.limit) {
      vector = await selectVectorCandidates(tx, p, true);
      vectorPath = 'exact';
    }
    return { vector, text, vectorPath, warning: undefined };
  });
}

/** Union of the two channels by (note, version); both carry distance and rank, so either copy will do. */
export function mergeCandidates(a: CandidateRow[], b: CandidateRow[]): CandidateRow[] {
  const byKey = new Map<string, CandidateRow>();
  for (const row of [...a, ...b]) byKey.set(`${row.version.noteId}\u0000${row.version.version}`, row);
  return [...byKey.values()];
}

/**
 * The record index's two channels in one tenant transaction: nearest records by vector (only
 * those embedded by the query's model) and full-text matches. Empty when records are left out.
 */
export async function readRecordCandidates(db: Db, p: RecordParams): Promise<RecordChannels> {
  return withTenant(db, p.tenantId, async (tx) => {
    const text = await selectRecordTextCandidates(tx, p);
    await setIndexScanSettings(tx, p.limit);
    let vector = await selectRecordVectorCandidates(tx, p, false);
    if (vector.length < p.limit) vector = await selectRecordVectorCandidates(tx, p, true);
    return { vector, text };
  });
}
