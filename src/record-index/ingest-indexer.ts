import type { Ports } from '../ports.ts';
import { indexArchivedObjects } from './index-records.ts';

/**
 * Indexes records as they are appended, so what an agent was told this morning is recallable
 * this afternoon instead of after the nightly run. It works behind the append: the caller gets
 * its answer when the records are archived, not when they are embedded.
 */
export interface IngestIndexer {
  /** Queues objects the archive writer just wrote; one tenant's objects are indexed in order. */
  enqueue(tenantId: string, objectKeys: readonly string[]): void;
  /** Resolves when everything queued so far is indexed or has failed. */
  idle(): Promise<void>;
}

/**
 * One chain of work per tenant, so a tenant's appends never race each other and one tenant's
 * slow embeddings do not hold up another's (they also share the embedder's fair queue).
 * A failure is logged, not retried: the index is a projection, and the next consolidation run
 * (or `nocturne index records`) indexes whatever is missing from its window.
 */
export function createIngestIndexer(
  ports: Pick<Ports, 'db' | 'archive' | 'embedder'>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): IngestIndexer {
  const chains = new Map<string, Promise<void>>();
  return {
    enqueue(tenantId, objectKeys) {
      if (objectKeys.length === 0) return;
      const previous = chains.get(tenantId) ?? Promise.resolve();
      const next = previous
        .then(() => indexArchivedObjects(ports, { tenantId, objectKeys }))
        .then(
          () => undefined,
          (error: unknown) =>
            log(
              `record index: ${objectKeys.length} new object(s) of tenant ${tenantId} not indexed (${error instanceof Error ? error.message : String(error)}); the next consolidation run indexes them`,
            ),
        );
      chains.set(tenantId, next);
      // Forget a finished chain so an idle tenant holds no memory.
      void next.then(() => {
        if (chains.get(tenantId) === next) chains.delete(tenantId);
      });
    },
    async idle() {
      while (chains.size > 0) await Promise.all([...chains.values()]);
    },
  };
}
