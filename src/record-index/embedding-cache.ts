import { insertCachedEmbeddings, selectCachedEmbeddings, withTenant, type Db } from '../db/index.ts';
import type { EmbeddingCache } from '../embeddings/cached.ts';

/** The embedding cache in the tenant's store (migration 0011), so erasure can find a subject's vectors. */
export function tenantEmbeddingCache(db: Db, tenantId: string): EmbeddingCache {
  return {
    get: (model, hashes) => withTenant(db, tenantId, (tx) => selectCachedEmbeddings(tx, { model, hashes })),
    put: (model, items) => withTenant(db, tenantId, (tx) => insertCachedEmbeddings(tx, { tenantId, model, items })),
  };
}
