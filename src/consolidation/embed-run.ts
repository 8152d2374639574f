import { selectUnembedded, updateEmbedding, withTenant } from '../db/index.ts';
import { SILENT, type Ports, type Progress } from '../ports.ts';
import { tenantEmbedder } from '../record-index/embedding-cache.ts';
import type { BatchKey } from './commit.ts';

/** Claims embedded per request to the embedding server. @default 64 */
export const EMBED_BATCH = 64;

/**
 * Embeds the claims of versions this run wrote that have no vector of the worker's model yet
 * (through the tenant's cache and lane): new claims, and claims whose copied vector another
 * model produced (a reinforce or rollback across a model switch). Each vector is stamped.
 */
export async function embedRunClaims(
  ports: Pick<Ports, 'db' | 'embedder'>,
  input: BatchKey,
  progress: Progress = SILENT,
): Promise<{ embedded: number; embedder: string }> {
  const { db } = ports;
  const embedder = tenantEmbedder(ports.embedder, db, input.tenantId);
  let embedded = 0;
  for (;;) {
    const pending = await withTenant(db, input.tenantId, (tx) =>
      selectUnembedded(tx, { runId: input.runId, limit: EMBED_BATCH, model: embedder.name }),
    );
    if (pending.length === 0) break;
    const vectors = await progress.during(embedder.embed(pending.map((p) => p.claim)), { embedded });
    await withTenant(db, input.tenantId, async (tx) => {
      for (const [i, p] of pending.entries())
        await updateEmbedding(tx, { ...p, embedding: vectors[i] as number[], model: embedder.name });
    });
    embedded += pending.length;
    progress.beat({ embedded });
  }
  return { embedded, embedder: embedder.name };
}
