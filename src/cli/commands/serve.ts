import type { Command } from 'commander';
import { createRecallApp } from '../../api/app.ts';
import { listen } from '../../api/server.ts';
import { loadConfig } from '../../config.ts';
import { openDb } from '../../db/index.ts';
import { UsageError } from '../errors.ts';
import { warn } from '../output.ts';
import { recallEmbedder } from './recall.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve the recall HTTP API (POST /v1/recall, bearer token per tenant from NOCTURNE_API_TOKENS)')
    .option('--port <n>', 'port to listen on (default NOCTURNE_API_PORT, 8787)')
    .option('--host <address>', 'address to bind (default NOCTURNE_API_HOST, 127.0.0.1)')
    .addHelpText(
      'after',
      `\nRuns until interrupted (Ctrl-C / SIGTERM).\n\nExit codes:\n  0  stopped on a signal\n  1  the server or the store failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: { port?: string; host?: string }) => {
      const config = loadConfig();
      const port = opts.port === undefined ? config.api.port : parsePort(opts.port);
      const host = opts.host ?? config.api.host;
      if (config.api.tokens.length === 0)
        throw new UsageError('NOCTURNE_API_TOKENS is empty: no tenant could call the API (tenant:token,…)');
      const embedder = await recallEmbedder(config);
      const db = await openDb(config.database, { dimension: config.embedding.dimension });
      try {
        const server = await listen(createRecallApp({ db, embedder, tokens: config.api.tokens }), { host, port });
        const tenants = [...new Set(config.api.tokens.map((t) => t.tenantId))];
        warn(
          `recall API on ${server.url} (POST /v1/recall) for ${tenants.length} tenant(s); embeddings ${embedder.name}`,
        );
        if (host !== '127.0.0.1' && host !== '::1' && host !== 'localhost')
          warn(`warning: bound to ${host}, not loopback: put TLS in front of it`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        warn('recall API: stopping');
        await server.close();
      } finally {
        await db.close();
      }
    });
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`--port: expected 0-65535, got ${JSON.stringify(value)}`);
  return n;
}
