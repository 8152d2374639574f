import type { Config } from '../config.ts';
import type { Embedder } from './embedder.ts';
import { createHashingEmbedder } from './hashing.ts';
import { createOllamaEmbedder } from './ollama.ts';
import { createOpenAiEmbedder } from './openai.ts';

export interface CreateEmbedderOptions {
  /**
   * Allow the lexical hashing fallback — the embedded demo only. With it, a configured model
   * that does not answer a probe is replaced by the fallback, announced through `log`.
   * Without it, provider `lexical` is refused and a model server is never replaced.
   */
  fallback?: 'lexical';
  /** How long the probe waits for the model server. @default 3000 */
  probeTimeoutMs?: number;
  log?: (line: string) => void;
}

export class EmbeddingConfigError extends Error {
  override name = 'EmbeddingConfigError';
}

const modelOf = (config: Config['embedding']) => ({
  url: config.url,
  model: config.model,
  dimension: config.dimension,
  batchSize: config.batchSize,
  maxInputChars: config.maxInputChars,
  maxBatchChars: config.maxBatchChars,
});

/** The configured model's embedder, without any network call (the first use fails if it is down). */
export function createModelEmbedder(
  config: Config['embedding'],
  overrides: { timeoutMs?: number; maxAttempts?: number } = {},
): Embedder {
  const calibrated = (embedder: Embedder): Embedder =>
    Object.assign(embedder, { similarityFloor: config.similarityFloor });
  switch (config.provider) {
    case 'openai':
      return calibrated(createOpenAiEmbedder({ ...modelOf(config), ...overrides }));
    case 'ollama':
      return calibrated(createOllamaEmbedder({ ...modelOf(config), ...overrides }));
    case 'lexical':
      throw new EmbeddingConfigError('NOCTURNE_EMBEDDING_PROVIDER=lexical has no model server');
  }
}

/**
 * The embedder for a worker. The lexical fallback is never chosen silently: only with
 * `fallback: 'lexical'`, and then its name (`lexical-hashing-N`) is in every output that used it.
 */
export async function createEmbedder(
  config: Config['embedding'],
  options: CreateEmbedderOptions = {},
): Promise<Embedder> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (config.provider === 'lexical') {
    if (options.fallback !== 'lexical') {
      throw new EmbeddingConfigError(
        'NOCTURNE_EMBEDDING_PROVIDER=lexical: the lexical hashing fallback is only for the embedded demo; configure an OpenAI-compatible or Ollama embedding server',
      );
    }
    const fallback = createHashingEmbedder(config.dimension);
    log(
      `EMBEDDINGS: using the lexical fallback ${fallback.name} (no embedding model configured); recall quality is lexical only`,
    );
    return fallback;
  }
  const model = createModelEmbedder(config);
  if (options.fallback !== 'lexical') return model;
  const probe = createModelEmbedder(config, { timeoutMs: options.probeTimeoutMs ?? 3000, maxAttempts: 1 });
  try {
    await probe.embed(['probe'], { kind: 'query' });
    return model;
  } catch (error) {
    const fallback = createHashingEmbedder(config.dimension);
    log(
      `EMBEDDINGS: ${model.name} at ${config.url} did not answer (${(error as Error).message}); using the lexical fallback ${fallback.name}`,
    );
    return fallback;
  }
}
