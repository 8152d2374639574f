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
  withTenant,
  writeNextEmbeddings,
} from '../db/index.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { PermanentFailure, SILENT, type Ports, type Progress } from '../ports.ts';

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
  const vectors = await progress.during(ports.embedder.embed(claims, { kind: 'passage' }));
  progress.beat({ embedded: page.length });
  await withTenant(ports.db, input.tenantId, async (tx) => {
    await lockTenantAgainstLease(tx, input);
    return writeNextEmbeddings(tx, {
      items: page.map((p, i) => ({ noteId: p.noteId, version: p.version, embedding: vectors[i] as number[] })),
    });
  });
  const last = page[page.length - 1] as { noteId: string };
  return { embedded: page.length, after: page.length < input.limit ? null : last.noteId };
}

/** The switch, in one transaction; a retry after it committed changes nothing. */
export async function switchEmbeddings(
  ports: Pick<Ports, 'db'>,
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
    const switched = await promoteNextEmbeddings(tx);
    const generation = await markReindexSwitched(tx, {
      tenantId: input.tenantId,
      model: input.model,
      dimension: input.dimension,
      reindexId: input.reindexId,
    });
    return { switched, generation, previousModel: current.model };
  });
}
