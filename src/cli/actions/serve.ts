import type { Hono } from 'hono';
import { createApiApp } from '../../api/app.ts';
import { assertSafeBinding, listen, PlaintextRefusedError } from '../../api/server.ts';
import type { ArchiveStore } from '../../archive/index.ts';
import { loadConfig, type Config } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { connectTemporal, openArchiveStore, openRecallEmbedder, withDb, type TemporalClient } from '../../runtime.ts';
import { createIngestIndexer } from '../../record-index/ingest-indexer.ts';
import { UsageError } from '../errors.ts';
import { warn } from '../output.ts';

export interface ServeOptions {
  port?: string;
  host?: string;
}

/** How long a conflict report waits for an unreachable Temporal before answering 503. */
const TEMPORAL_CONNECT_TIMEOUT_MS = 5000;

/**
 * `nocturne serve`: the agents' HTTP API and MCP endpoint (and the note inspector when
 * operators are configured) until SIGINT/SIGTERM.
 */
export async function serveCommand(opts: ServeOptions): Promise<void> {
  const config = loadConfig();
  const port = opts.port === undefined ? config.api.port : parsePort(opts.port);
  const host = opts.host ?? config.api.host;
  if (config.api.tokens.length === 0)
    throw new UsageError('NOCTURNE_API_TOKENS is empty: no tenant could call the API (tenant:token,…)');
  refusePlaintextBeyondLoopback(host, config);
  const embedder = await openRecallEmbedder(config);
  const archive = await openArchiveStore(config);
  const conflicts = await lazyConflicts(config);
  try {
    await withDb(config, async (db) => {
      const inspector = config.api.operators.length > 0 ? await openInspector(config, db) : undefined;
      const recordIndexer = createIngestIndexer({ db, archive, embedder });
      const app = createApiApp({
        db,
        embedder,
        archive,
        conflicts,
        recordIndexer,
        tokens: config.api.tokens,
        ...(config.api.limits ? { limits: config.api.limits } : {}),
        ...(inspector ? { inspector: inspector.app } : {}),
      });
      const server = await listen(app, {
        host,
        port,
        ...(config.api.tls ? { tls: config.api.tls } : {}),
        allowPlaintext: config.api.allowPlaintext ?? false,
      });
      const tenants = new Set(config.api.tokens.map((t) => t.tenantId)).size;
      warn(
        `Nocturne API on ${server.url} (/v1, /mcp, docs at /docs) for ${tenants} tenant(s); embeddings ${embedder.name}`,
      );
      warn(
        inspector
          ? `note inspector on ${server.url}/inspector for ${config.api.operators.length} operator(s)`
          : 'note inspector off (no NOCTURNE_OPERATOR_TOKENS)',
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      warn('Nocturne API: stopping');
      await server.close();
      await recordIndexer.idle();
      await inspector?.close();
    });
  } finally {
    await conflicts.close();
    await archive.close();
  }
}

/** Temporal is connected on the first conflict report, so the API serves recall while Temporal is down. */
async function lazyConflicts(config: Config) {
  const { createLazyConflictReporter } = await import('../../conflicts/lazy-reporter.ts');
  return createLazyConflictReporter({
    connect: () => connectTemporal(config, { connectTimeoutMs: TEMPORAL_CONNECT_TIMEOUT_MS }),
    describe: `Temporal at ${config.temporal.address}`,
    taskQueue: config.temporal.taskQueue,
    threshold: config.triggers.conflictThreshold,
    cooldownSeconds: config.triggers.conflictCooldownSeconds,
  });
}

/** The inspector's archive and (on first button press) Temporal client, and how to close them. */
async function openInspector(config: Config, db: Db): Promise<{ app: Hono; close(): Promise<void> }> {
  const { createInspectorApp, temporalRollbackLauncher } = await import('../../inspector/index.ts');
  const archive: ArchiveStore = await openArchiveStore(config);
  let temporal: Promise<TemporalClient> | undefined;
  const app = createInspectorApp({
    db,
    archive,
    operators: config.api.operators,
    tenants: [...new Set(config.api.tokens.map((t) => t.tenantId))].sort(),
    rollbacks: temporalRollbackLauncher({
      client: async () => (await (temporal ??= connectTemporal(config))).client,
      taskQueue: config.temporal.taskQueue,
    }),
  });
  return {
    app,
    async close() {
      await archive.close();
      if (temporal) await (await temporal).close();
    },
  };
}

function refusePlaintextBeyondLoopback(host: string, config: Config): void {
  try {
    assertSafeBinding(host, config.api);
  } catch (error) {
    throw error instanceof PlaintextRefusedError ? new UsageError(error.message) : error;
  }
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`--port: expected 0-65535, got ${JSON.stringify(value)}`);
  return n;
}
