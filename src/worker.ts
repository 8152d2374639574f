import { DefaultLogger, Runtime, Worker, makeTelemetryFilterString, type LogLevel } from '@temporalio/worker';
import { ulid } from 'ulid';
import { fileURLToPath } from 'node:url';
import { createActivities } from '../activities/index.ts';
import { ArchiveObjectCache } from './archive/object-cache.ts';
import type { Config } from './config.ts';
import type { PhaseTimes } from './consolidation/phase-times.ts';
import type { Db } from './db/index.ts';
import type { Embedder } from './embeddings/embedder.ts';
import { createDeterministicEngine } from './engine/deterministic.ts';
import { createLlmEngine } from './engine/llm-engine.ts';
import type { NoteEngine } from './engine/types.ts';
import { openLlm } from './llm/index.ts';
import { connectWorkerTransport, openArchiveStore, openEmbedder, openNoteStore } from './runtime.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

let runtimeInstalled = false;

/**
 * The SDK's runtime (and its log level) can be set once per process, before the first worker.
 * Native (core) logs are forwarded to the TS logger, which writes to stderr: printed directly
 * they would land on stdout, inside a command's `--json` output.
 */
function installRuntime(level: LogLevel): void {
  if (runtimeInstalled) return;
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level, other: 'ERROR' }), forward: {} } },
  });
  runtimeInstalled = true;
}

/** The deterministic engine unless a model is configured; either way validation follows. */
export function createEngine(config: Config): NoteEngine {
  const llm = openLlm(config.llm);
  return llm ? createLlmEngine(llm) : createDeterministicEngine();
}

export interface WorkerHandle {
  worker: Worker;
  db: Db;
  embedder: Embedder;
  /** Runs until shutdown (SIGINT/SIGTERM or `worker.shutdown()`), then closes every client. */
  run(): Promise<void>;
  /**
   * Runs while `fn` works (a benchmark, the demo), then shuts the worker down and closes every
   * client: a Temporal connection left open keeps the process from exiting.
   */
  runUntil<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * The worker's composition: config → clients (from src/runtime.ts) → activities → worker. Claims are embedded by
 * the configured model; the named lexical fallback only when `embeddingFallback` allows it
 * (the embedded demo), and its name is in every reindex result.
 */
export async function createWorker(
  config: Config,
  options: {
    db?: Db;
    log?: (line: string) => void;
    sdkLogLevel?: LogLevel;
    embeddingFallback?: 'lexical';
    /** Wraps the configured embedder (an evaluation adds a cache kept between its runs). */
    wrapEmbedder?: (embedder: Embedder) => Embedder;
    /** Replay adds the time of each of its phases here (a benchmark reads it). */
    replayPhases?: PhaseTimes;
  } = {},
): Promise<WorkerHandle> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  installRuntime(options.sdkLogLevel ?? 'WARN');
  const configured = await openEmbedder(config, {
    ...(options.embeddingFallback ? { fallback: options.embeddingFallback } : {}),
    log,
  });
  const embedder = options.wrapEmbedder ? options.wrapEmbedder(configured) : configured;
  const archive = await openArchiveStore(config);
  const db = options.db ?? (await openNoteStore(config));
  const engine = createEngine(config);
  const connection = await connectWorkerTransport(config);
  const closeClients = async () => {
    await connection.close();
    await archive.close();
    if (!options.db) await db.close();
  };
  try {
    const worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      workflowsPath: WORKFLOWS_PATH,
      activities: createActivities({
        archive,
        ...(config.archive.cacheBytes > 0 ? { archiveCache: new ArchiveObjectCache(config.archive.cacheBytes) } : {}),
        db,
        embedder,
        engine,
        newId: () => ulid(),
        ...(options.replayPhases ? { replayPhases: options.replayPhases } : {}),
      }),
    });
    log(
      `worker: task queue ${config.temporal.taskQueue} on ${config.temporal.address}, archive ${archive.location}, embeddings ${embedder.name}, notes ${engine.name}`,
    );
    return {
      worker,
      db,
      embedder,
      async run() {
        try {
          await worker.run();
        } finally {
          await closeClients();
        }
      },
      async runUntil(fn) {
        try {
          return await worker.runUntil(fn);
        } finally {
          await closeClients();
        }
      },
    };
  } catch (error) {
    await closeClients();
    throw error;
  }
}
