import { createRecallApp } from '../../api/app.ts';
import { listen } from '../../api/server.ts';
import { loadConfig } from '../../config.ts';
import { openRecallEmbedder, withDb } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { warn } from '../output.ts';

export interface ServeOptions {
  port?: string;
  host?: string;
}

/** `nocturne serve`: the recall API until SIGINT/SIGTERM. */
export async function serveCommand(opts: ServeOptions): Promise<void> {
  const config = loadConfig();
  const port = opts.port === undefined ? config.api.port : parsePort(opts.port);
  const host = opts.host ?? config.api.host;
  if (config.api.tokens.length === 0)
    throw new UsageError('NOCTURNE_API_TOKENS is empty: no tenant could call the API (tenant:token,…)');
  const embedder = await openRecallEmbedder(config);
  await withDb(config, async (db) => {
    const server = await listen(createRecallApp({ db, embedder, tokens: config.api.tokens }), { host, port });
    const tenants = [...new Set(config.api.tokens.map((t) => t.tenantId))];
    warn(`recall API on ${server.url} (POST /v1/recall) for ${tenants.length} tenant(s); embeddings ${embedder.name}`);
    if (host !== '127.0.0.1' && host !== '::1' && host !== 'localhost')
      warn(`warning: bound to ${host}, not loopback: put TLS in front of it`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    warn('recall API: stopping');
    await server.close();
  });
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`--port: expected 0-65535, got ${JSON.stringify(value)}`);
  return n;
}
