import { Ollama } from '@llamaindex/ollama';
import { z } from 'zod';
import { batchedEmbedder, requestTimeoutMs, splitUrls, type BatchingOptions } from './batching.ts';
import { checkVectors, EmbeddingError, type EmbedKind, type Embedder } from './embedder.ts';

export interface OllamaEmbedderOptions extends BatchingOptions {
  /** The Ollama server, e.g. `http://127.0.0.1:11434` (a trailing `/v1` or `/api` is dropped), or several separated by commas. */
  url: string;
  model: string;
  dimension: number;
  /** Per request, plus `timeoutPerKiloCharMs` per 1,000 characters of its body (see the OpenAI adapter). @default 30000 */
  timeoutMs?: number;
  /** @default 30000 */
  timeoutPerKiloCharMs?: number;
  /**
   * Prefixes for asymmetric models, which Ollama does not add itself.
   * @default e5 models (name contains "e5"): `query: ` / `passage: `; others: none
   */
  prefixes?: { query: string; passage: string };
}

const EmbedResponse = z.object({ embeddings: z.array(z.array(z.number())) });

/**
 * The embedding port over LlamaIndex's Ollama provider. Its OllamaEmbedding sends one text per
 * request to the legacy `/api/embeddings`; this calls the same client's batched `/api/embed`.
 */
export function createOllamaEmbedder(options: OllamaEmbedderOptions): Embedder {
  const source = `ollama:${options.model}`;
  const hosts = splitUrls(options.url).map((url) => url.replace(/\/+$/, '').replace(/\/(v1|api)$/, ''));
  // The ollama client has no timeout of its own: every request gets an abort signal, longer for
  // a longer body (the texts are most of it), as a CPU model takes longer for more text.
  const timedFetch: typeof fetch = (input, init) => {
    const chars = typeof init?.body === 'string' ? init.body.length : 0;
    return fetch(input, { ...init, signal: AbortSignal.timeout(requestTimeoutMs(chars, options)) });
  };
  const clients = hosts.map((host) => new Ollama({ model: options.model, config: { host, fetch: timedFetch } }).ollama);
  const prefixes =
    options.prefixes ??
    (/e5/i.test(options.model) ? { query: 'query: ', passage: 'passage: ' } : { query: '', passage: '' });
  const request = async (input: string[], kind: EmbedKind, server: number): Promise<number[][]> => {
    const raw: unknown = await (clients[server] as (typeof clients)[number]).embed({
      model: options.model,
      input: input.map((t) => `${prefixes[kind]}${t}`),
      truncate: true,
    });
    const parsed = EmbedResponse.safeParse(raw);
    if (!parsed.success)
      throw new EmbeddingError(
        `${source} answered an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      );
    checkVectors(parsed.data.embeddings, input.length, options.dimension, source);
    return parsed.data.embeddings;
  };
  return batchedEmbedder(source, options.dimension, request, options, clients.length);
}
