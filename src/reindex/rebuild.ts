import {
  clearNextEmbeddings,
  lockTenantAgainstLease,
  countReindexable,
  markReindexPending,
  markReindexSwitched,
  promoteNextEmbeddings,
  readStoredEmbeddingDimension,
  selectEmbeddingProjection,
  selectReindexPage,
  selectWithoutModelVector,
  withTenant,
  writeNextEmbeddings,
  type Queryable,
} from '../db/index.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { PermanentFailure, SILENT, type Ports, type Progress } from '../ports.ts';
import { tenantEmbedder } from '../record-index/embedding-cache.ts';

/**
 * Rebuilding a tenant's embeddings with another model: the new vectors are written beside the
 * live ones, page by page, and switched in one transaction, so recall never mixes two models.
 */

export interface ReindexKey {
  tenantId: string;
  /** Identifies one rebuild across continue-as-new: `<workflow id>/<first run id>`. */
  reindexId: string;
}

export interface ReindexStart {
  model: string;
  dimension: number;
  /** Active and staged notes at the start (notes created later are embedded by their own run). */
  total: number;
  previousModel: string | null;
}

export interface ReindexPageInput extends ReindexKey {
  model: string;
  after: string | null;
  limit: number;
}

export interface ReindexPageResult {
  embedded: number;
  /** The cursor for the next page; null when this page was the last. */
  after: string | null;
}

export interface ReindexSwitch {
  switched: number;
  generation: number;
  previousModel: string | null;
}

/**
 * Starts (or restarts) a rebuild with the worker's embedder: checks its dimension against the
 * store's column, drops vectors an abandoned rebuild left, and marks the rebuild pending.
 */
export async function beginReindex(ports: Pick<Ports, 'db' | 'embedder'>, input: ReindexKey): Promise<ReindexStart> {
  const { name: model, dimension } = ports.embedder;
  const stored = await readStoredEmbeddingDimension(ports.db);
  if (stored !== undefined && stored !== dimension) {
    throw new PermanentFailure(
      `embedder ${model} gives ${dimension}-dimension vectors but the note store holds vector(${stored}): a dimension change needs a new store (or a migration to a new column), not a reindex`,
      FailureType.EmbeddingDimensionMismatch,
    );
  }
  return withTenant(ports.db, input.tenantId, async (tx) => {
    const current = await selectEmbeddingProjection(tx);
    if (current?.pendingReindex !== input.reindexId) await clearNextEmbeddings(tx);
    await markReindexPending(tx, { tenantId: input.tenantId, model, reindexId: input.reindexId });
    return { model, dimension, total: await countReindexable(tx), previousModel: current?.model ?? null };
  });
}

/** Embeds one page of claims as passages into the next generation; the live vectors are untouched. */
export async function reembedPage(
  ports: Pick<Ports, 'db' | 'embedder'>,
  input: ReindexPageInput,
  progress: Progress = SILENT,
): Promise<ReindexPageResult> {
  if (ports.embedder.name !== input.model) {
    throw new PermanentFailure(
      `this rebuild embeds with ${input.model} but this worker's embedder is ${ports.embedder.name}: workers changed model mid-rebuild; start a new reindex`,
      FailureType.EmbeddingModelChanged,
    );
  }
  const page = await withTenant(ports.db, input.tenantId, (tx) =>
    selectReindexPage(tx, { after: input.after, limit: input.limit }),
  );
  if (page.length === 0) return { embedded: 0, after: null };
  const claims = page.map((p) => p.claim);
  // Through the tenant's cache: a rebuild with the model a claim was embedded with costs no request.
  const embedder = tenantEmbedder(ports.embedder, ports.db, input.tenantId);
  const vectors = await progress.during(embedder.embed(claims, { kind: 'passage' }));
  progress.beat({ embedded: page.length });
  await withTenant(ports.db, input.tenantId, async (tx) => {
    await lockTenantAgainstLease(tx, input);
    return writeNextEmbeddings(tx, {
      model: input.model,
      items: page.map((p, i) => ({ noteId: p.noteId, version: p.version, embedding: vectors[i] as number[] })),
    });
  });
  const last = page[page.length - 1] as { noteId: string };
  return { embedded: page.length, after: page.length < input.limit ? null : last.noteId };
}

/**
 * The switch, in one transaction; a retry after it committed changes nothing. Versions written
 * after their page (a reinforce or rollback copies the old model's vector; a new claim may not be
 * embedded yet) are embedded with the new model first, under the same tenant write lock, so after
 * the switch every active and staged note's vector comes from the new model.
 */
export async function switchEmbeddings(
  ports: Pick<Ports, 'db' | 'embedder'>,
  input: ReindexKey & { model: string; dimension: number },
): Promise<ReindexSwitch> {
  return withTenant(ports.db, input.tenantId, async (tx) => {
    await lockTenantAgainstLease(tx, input);
    const current = await selectEmbeddingProjection(tx);
    if (current?.lastReindex === input.reindexId && current.pendingReindex === null) {
      return { switched: 0, generation: current.generation, previousModel: current.model };
    }
    if (current?.pendingReindex !== input.reindexId) {
      throw new PermanentFailure(
        `reindex ${input.reindexId} was superseded by ${current?.pendingReindex ?? 'nothing'} for tenant ${input.tenantId}; its vectors were dropped`,
        FailureType.ReindexSuperseded,
      );
    }
    await embedLateVersions(ports, tx, input);
    const switched = await promoteNextEmbeddings(tx, { model: input.model });
    const generation = await markReindexSwitched(tx, {
      tenantId: input.tenantId,
      model: input.model,
      dimension: input.dimension,
      reindexId: input.reindexId,
    });
    return { switched, generation, previousModel: current.model };
  });
}

/** Embeds, into the next generation, current versions written since their page was rebuilt. */
async function embedLateVersions(
  ports: Pick<Ports, 'db' | 'embedder'>,
  tx: Queryable,
  input: ReindexKey & { model: string },
): Promise<number> {
  const late = await selectWithoutModelVector(tx, { model: input.model });
  if (late.length === 0) return 0;
  if (ports.embedder.name !== input.model) {
    throw new PermanentFailure(
      `this rebuild switches to ${input.model} but this worker's embedder is ${ports.embedder.name}, and ${late.length} note(s) written during the rebuild still need a vector: start a new reindex`,
      FailureType.EmbeddingModelChanged,
    );
  }
  const embedder = tenantEmbedder(ports.embedder, ports.db, input.tenantId);
  const vectors = await embedder.embed(
    late.map((l) => l.claim),
    { kind: 'passage' },
  );
  return writeNextEmbeddings(tx, {
    model: input.model,
    items: late.map((l, i) => ({ noteId: l.noteId, version: l.version, embedding: vectors[i] as number[] })),
  });
}
