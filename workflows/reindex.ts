import {
  ContinueAsNew,
  continueAsNew,
  defineQuery,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ConsolidationActivities } from '../activities/index.ts';
import { ReindexInput, type ReindexResume } from '../src/contracts/workflow-inputs.ts';
import { BOOKKEEPING, REINDEX } from './activity-options.ts';
import { freeOperationLease, OPERATION_LEASE_PATCH } from './operation-lease.ts';
import { parseWorkflowInput } from './workflow-input.ts';

const { beginReindex, switchEmbeddings } = proxyActivities<ConsolidationActivities>(BOOKKEEPING);
const { reembedPage } = proxyActivities<ConsolidationActivities>(REINDEX);

export interface ReindexProgress {
  tenantId: string;
  phase: 'starting' | 'embedding' | 'switching' | 'done';
  model?: string;
  embedded: number;
  total: number;
  pages: number;
}

export interface ReindexResult {
  tenantId: string;
  reason?: string;
  model: string;
  dimension: number;
  previousModel: string | null;
  embedded: number;
  pages: number;
  /** Versions whose live vector was replaced at the switch. */
  switched: number;
  generation: number;
}

export const reindexProgressQuery = defineQuery<ReindexProgress>('reindexProgress');

/**
 * Rebuilds a tenant's embedding projection with the workers' current embedder (after a model
 * change): re-embeds the current version of every active and staged note page by page into a
 * side column, and switches the live vectors only when every page is done. Start it with a
 * business id (`reindex/<tenant>`) so two rebuilds of one tenant never run at once. Every step
 * holds the tenant's operation lease (no consolidation, run rollback or erasure beside it), freed
 * at the end, on failure or cancellation, and kept across continue-as-new.
 */
export async function reindexWorkflow(raw: ReindexInput): Promise<ReindexResult> {
  const input = parseWorkflowInput(ReindexInput, raw);
  const leased = patched(OPERATION_LEASE_PATCH);
  try {
    const result = await rebuild(raw, input);
    if (leased) await freeOperationLease(input.tenantId);
    return result;
  } catch (error) {
    if (leased && !(error instanceof ContinueAsNew)) await freeOperationLease(input.tenantId);
    throw error;
  }
}

async function rebuild(raw: ReindexInput, input: ReturnType<typeof ReindexInput.parse>): Promise<ReindexResult> {
  const info = workflowInfo();
  const progress: ReindexProgress = {
    tenantId: input.tenantId,
    phase: 'starting',
    embedded: input.resume?.embedded ?? 0,
    total: input.resume?.total ?? 0,
    pages: input.resume?.pages ?? 0,
  };
  setHandler(reindexProgressQuery, () => progress);

  const state = input.resume ?? (await start(input.tenantId, `${info.workflowId}/${info.firstExecutionRunId}`));
  Object.assign(progress, { phase: 'embedding', model: state.model, total: state.total });
  const key = { tenantId: input.tenantId, reindexId: state.reindexId };
  let pagesHere = 0;
  for (let done = false; !done;) {
    if (pagesHere >= input.pagesPerExecution || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof reindexWorkflow>({ ...raw, resume: state });
    }
    const page = await reembedPage({ ...key, model: state.model, after: state.after, limit: input.pageSize });
    state.embedded += page.embedded;
    state.pages += 1;
    state.after = page.after;
    pagesHere += 1;
    done = page.after === null;
    Object.assign(progress, { embedded: state.embedded, pages: state.pages });
  }

  progress.phase = 'switching';
  const sw = await switchEmbeddings({ ...key, model: state.model, dimension: state.dimension });
  progress.phase = 'done';
  return {
    tenantId: input.tenantId,
    ...(input.reason ? { reason: input.reason } : {}),
    model: state.model,
    dimension: state.dimension,
    previousModel: state.previousModel,
    embedded: state.embedded,
    pages: state.pages,
    switched: sw.switched,
    generation: sw.generation,
  };
}

async function start(tenantId: string, reindexId: string): Promise<ReindexResume> {
  const s = await beginReindex({ tenantId, reindexId });
  return {
    reindexId,
    model: s.model,
    dimension: s.dimension,
    total: s.total,
    previousModel: s.previousModel,
    after: null,
    embedded: 0,
    pages: 0,
  };
}
