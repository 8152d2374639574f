import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { ArchiveStore } from './archive/store.ts';
import type { Config } from './config.ts';
import type { Db } from './db/index.ts';
import type { Embedder } from './embeddings/embedder.ts';

/**
 * Builds what the entry points share (the `nocturne` commands, the recall API, the worker and the
 * tools) from one Config: the Temporal client, the note store, the archive and the embedder.
 * Each is imported when it is first asked for, so a command pays only for the clients it uses
 * (`nocturne --help` loads none of them), and whoever opens one closes it.
 */

/** Runs `fn` with an opened resource and closes it afterwards, whether `fn` succeeded or not. */
async function using<R, T>(opened: R, close: (r: R) => Promise<void>, fn: (r: R) => Promise<T>): Promise<T> {
  try {
    return await fn(opened);
  } finally {
    await close(opened);
  }
}

export interface TemporalClient {
  client: Client;
  close(): Promise<void>;
}

/**
 * A client of the configured Temporal namespace; `close()` closes its connection.
 * `connectTimeoutMs` bounds the wait for an unreachable server (a server answering a request).
 */
export async function connectTemporal(
  config: Config,
  options: { connectTimeoutMs?: number } = {},
): Promise<TemporalClient> {
  const { Client, Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({
    address: config.temporal.address,
    ...(options.connectTimeoutMs !== undefined ? { connectTimeout: options.connectTimeoutMs } : {}),
  });
  return {
    client: new Client({ connection, namespace: config.temporal.namespace }),
    close: () => connection.close(),
  };
}

export async function withTemporalClient<T>(config: Config, fn: (client: Client) => Promise<T>): Promise<T> {
  return using(
    await connectTemporal(config),
    (t) => t.close(),
    (t) => fn(t.client),
  );
}

/** The worker's connection (the native one of the worker SDK, not the client's). */
export async function connectWorkerTransport(config: Config): Promise<NativeConnection> {
  const { NativeConnection } = await import('@temporalio/worker');
  return NativeConnection.connect({ address: config.temporal.address });
}

export interface NoteStoreOptions {
  /** A schema of its own (postgres only), as evaluations and benchmarks use. */
  schema?: string;
}

/** What the note store needs of the config (benchmarks pass a bare URL and dimension). */
export type NoteStoreConfig = Pick<Config, 'database'> &
  Partial<Pick<Config, 'audit'>> & { embedding: Pick<Config['embedding'], 'dimension'> };

/** The note store named by the config, migrated to the current schema. */
export async function openNoteStore(config: NoteStoreConfig, options: NoteStoreOptions = {}): Promise<Db> {
  const { openDb } = await import('./db/index.ts');
  return openDb(config.database, {
    dimension: config.embedding.dimension,
    ...(options.schema ? { schema: options.schema } : {}),
    ...(config.audit?.key ? { auditKey: config.audit.key } : {}),
  });
}

export async function withDb<T>(
  config: NoteStoreConfig,
  fn: (db: Db) => Promise<T>,
  options?: NoteStoreOptions,
): Promise<T> {
  return using(await openNoteStore(config, options), (db) => db.close(), fn);
}

export async function openArchiveStore(config: Pick<Config, 'archive'>): Promise<ArchiveStore> {
  const { openArchive } = await import('./archive/index.ts');
  return openArchive(config.archive);
}

export async function withArchive<T>(
  config: Pick<Config, 'archive'>,
  fn: (store: ArchiveStore) => Promise<T>,
): Promise<T> {
  return using(await openArchiveStore(config), (store) => store.close(), fn);
}

export interface EmbedderOptions {
  /** Allow the named lexical fallback when no model is configured (the embedded demo). */
  fallback?: 'lexical';
  log?: (line: string) => void;
}

/** The configured embedding model (or the lexical fallback where allowed). */
export async function openEmbedder(config: Config, options: EmbedderOptions = {}): Promise<Embedder> {
  const { createEmbedder } = await import('./embeddings/create.ts');
  return createEmbedder(config.embedding, options);
}

/**
 * The embedder recall queries use. The lexical fallback is allowed only with the embedded store
 * (the demo's setting), where notes were indexed by it too; the embedder announces it on stderr.
 */
export async function openRecallEmbedder(config: Config): Promise<Embedder> {
  return openEmbedder(config, config.database.kind === 'pglite' ? { fallback: 'lexical' } : {});
}
