import { randomBytes } from 'node:crypto';
import { writeBatch, type ArchiveStore } from '../../src/archive/index.ts';
import { parseConfig, type Config } from '../../src/config.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { consolidationId } from '../../src/contracts/workflow-ids.ts';
import { dropSchema, type Db } from '../../src/db/index.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { indexArchivedObjects } from '../../src/record-index/index.ts';
import { recall, type RecallRequest, type RecallResult } from '../../src/recall/index.ts';
import { connectTemporal, openArchiveStore, openNoteStore } from '../../src/runtime.ts';
import { createWorker } from '../../src/worker.ts';
import type { EmbeddingCache as VectorStore } from '../../src/embeddings/cached.ts';
import type { AblationName } from '../choices.ts';
import { ablatedRecall } from './ablations.ts';
import { countedEmbedder, emptyCounts, type EmbeddingCounts } from './embedding-counts.ts';
import type { ConsolidateResult } from '../../workflows/consolidate-tenant.ts';

/**
 * Nocturne as the evaluation uses it: the real stack (Temporal, PostgreSQL with pgvector, S3,
 * the embedding server), a worker in this process, a note schema and an archive prefix of its
 * own, so an evaluation never sees (or leaves) other data. Every case gets a fresh tenant.
 */
export interface EvalPipeline {
  config: Config;
  /** The run's own note schema (dropped on close unless kept). */
  schema: string;
  db: Db;
  archive: ArchiveStore;
  embedder: Embedder;
  /** The run's ablation switches (tools/eval/ablations.ts), applied to every call they name. */
  ablations: readonly AblationName[];
  /** Texts the embedding model embedded for this run, and passages the cache answered. */
  embeddingCounts: EmbeddingCounts;
  /** Archives records for a tenant (tenantId overwritten) and returns how many were accepted. */
  archiveRecords(tenantId: string, records: RawRecordInput[]): Promise<{ accepted: number; rejected: number }>;
  /** Archives records and indexes them for recall at once, as the records API does for an agent's appends. */
  appendRecords(tenantId: string, records: RawRecordInput[]): Promise<{ accepted: number; rejected: number }>;
  /** One consolidation run over the tenant's records observed up to `to` (all, when absent), every episode in budget. */
  consolidate(tenantId: string, options?: { to?: string; seed?: number }): Promise<ConsolidateResult>;
  /** Recall as the online agent does, with `now` at the question's time (decay is measured from it). */
  recall(request: RecallRequest, now?: Date): Promise<RecallResult>;
  close(): Promise<void>;
}

interface EvalPipelineOptions {
  /** Environment with the stack's endpoints (DATABASE_URL, an s3:// archive, TEMPORAL_ADDRESS, the embedding server). */
  env: NodeJS.ProcessEnv;
  /** Names the schema, archive prefix and task queue. */
  name: string;
  /** Keep the schema after close (to inspect notes with `nocturne notes`). @default false */
  keep?: boolean;
  /** Parts of the pipeline to switch off for this run. @default none */
  ablate?: readonly AblationName[];
  /** Where the worker's passage vectors are kept between runs. @default none (every passage embedded) */
  embeddingStore?: VectorStore;
  /** Keep question vectors there too (recall latency then leaves out embedding the question). @default false */
  cacheQueries?: boolean;
  log?: (line: string) => void;
}

/** Episodes and note changes an evaluation run may spend: enough for every episode of a case. */
const EVAL_BUDGET = {
  maxEpisodes: 100_000,
  maxNoteChanges: 1_000_000,
  maxLlmTokens: 10_000_000,
  deadlineSeconds: 6 * 3600,
};

/**
 * The stack's configuration with an archive prefix and a task queue of this run's own, the name
 * of its note schema and its ablation switches. Refuses anything but the real stack.
 */
function isolatedConfig(options: EvalPipelineOptions, suffix: string) {
  const base = parseConfig(options.env);
  if (base.database.kind !== 'postgres' || !base.archive.uri.startsWith('s3://')) {
    throw new Error(
      'evaluation runs on the real stack: eval "$(nocturne stack up)" first (DATABASE_URL and an s3:// archive)',
    );
  }
  const bucket = new URL(base.archive.uri).host;
  const config = parseConfig({
    ...options.env,
    NOCTURNE_ARCHIVE_URI: `s3://${bucket}/${options.name}-${suffix}`,
    NOCTURNE_TASK_QUEUE: `${options.name}-${suffix}`,
  });
  const schema = `nocturne_${options.name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${suffix}`;
  // The schema is dropped by its owner: the migration login when there is one.
  const databaseUrl = base.database.migrationUrl ?? base.database.url;
  return { config, schema, databaseUrl, ablations: [...(options.ablate ?? [])] };
}

const archiveFor = (archive: ArchiveStore, tenantId: string, records: RawRecordInput[]) =>
  writeBatch(archive, { tenantId, producer: 'nocturne-eval', records: records.map((r) => ({ ...r, tenantId })) });

export async function openEvalPipeline(options: EvalPipelineOptions): Promise<EvalPipeline> {
  const suffix = randomBytes(4).toString('hex');
  const { config, schema, databaseUrl, ablations } = isolatedConfig(options, suffix);
  const db = await openNoteStore(config, { schema });
  const archive = await openArchiveStore(config);
  const embeddingCounts = emptyCounts();
  const handle = await createWorker(config, {
    db,
    log: options.log ?? (() => {}),
    wrapEmbedder: (embedder) =>
      countedEmbedder(embedder, options.embeddingStore, embeddingCounts, options.cacheQueries ?? false),
  });
  const running = handle.run();
  const { client, close: closeClient } = await connectTemporal(config);
  let runs = 0;
  return {
    config,
    schema,
    db,
    archive,
    embedder: handle.embedder,
    ablations,
    embeddingCounts,
    async archiveRecords(tenantId, records) {
      const written = await archiveFor(archive, tenantId, records);
      return { accepted: written.accepted, rejected: written.rejected.length };
    },
    async appendRecords(tenantId, records) {
      const written = await archiveFor(archive, tenantId, records);
      const objectKeys = written.objects.map((o) => o.objectKey);
      await indexArchivedObjects({ db, archive, embedder: handle.embedder }, { tenantId, objectKeys });
      return { accepted: written.accepted, rejected: written.rejected.length };
    },
    async consolidate(tenantId, opts = {}) {
      runs += 1;
      return (await client.workflow.execute('consolidateTenantWorkflow', {
        taskQueue: config.temporal.taskQueue,
        workflowId: consolidationId(tenantId, `eval-${suffix}-${runs}`),
        args: [
          {
            tenantId,
            trigger: 'manual',
            seed: opts.seed ?? 1,
            window: opts.to ? { to: opts.to } : {},
            budget: EVAL_BUDGET,
            // Recall is measured right after the run: every note must have its vector by then.
            vectorWaitSeconds: EVAL_BUDGET.deadlineSeconds,
          },
        ],
      })) as ConsolidateResult;
    },
    recall: (request, now) =>
      recall(db, handle.embedder, ablatedRecall(request, ablations), now ? { now: () => now } : {}),
    async close() {
      handle.worker.shutdown();
      await running;
      await closeClient();
      await db.close();
      await archive.close();
      if (!options.keep) await dropSchema(databaseUrl, schema);
    },
  };
}
