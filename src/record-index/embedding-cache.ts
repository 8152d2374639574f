import { insertCachedEmbeddings, selectCachedEmbeddings, withTenant, type Db } from '../db/index.ts';
import { createCachedEmbedder, inLane, type EmbeddingCache } from '../embeddings/cached.ts';
import type { Embedder } from '../embeddings/embedder.ts';

/** The embedding cache in the tenant's store (migration 0011), so erasure can find a subject's vectors. */
export function tenantEmbeddingCache(db: Db, tenantId: string): EmbeddingCache {
  return {
    get: (model, hashes) => withTenant(db, tenantId, (tx) => selectCachedEmbeddings(tx, { model, hashes })),
    put: (model, items) => withTenant(db, tenantId, (tx) => insertCachedEmbeddings(tx, { tenantId, model, items })),
  };
}

/**
 * A tenant's embedder: its requests wait in the tenant's lane, and passages go through the
 * tenant's embedding cache, so a claim or record text is embedded once per model (reindexing,
 * a claim written again by a later run, a retried activity).
 */
export function tenantEmbedder(embedder: Embedder, db: Db, tenantId: string): Embedder {
  return createCachedEmbedder(inLane(embedder, tenantId), tenantEmbeddingCache(db, tenantId));
}
