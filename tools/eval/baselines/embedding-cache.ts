import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EmbeddingCache as VectorStore } from '../../../src/embeddings/cached.ts';
import type { Embedder } from '../../../src/embeddings/embedder.ts';

/**
 * Passage embeddings the dense baseline computed before, on disk: one append-only JSONL file per
 * model under `dir`, each line `{"key": sha256(model, text), "vector": base64 of float64s}`.
 * Vectors are stored at full precision, so a cached run ranks exactly as an uncached one. A file
 * is read the first time its model is asked for; a line that does not parse (a run killed while
 * appending) is skipped, and its text embedded again. Queries are not cached: the baseline's
 * query latency is measured against Nocturne's.
 */
export interface EmbeddingCache {
  /** Passage vectors for `texts` in order, embedding only those not cached; `embedded` counts those. */
  passages(embedder: Embedder, texts: readonly string[]): Promise<{ vectors: number[][]; embedded: number }>;
  /** Texts asked for so far: read from the cache, or embedded and added to it. */
  readonly counts: { cached: number; embedded: number };
  /**
   * The same files as a vector store keyed by text hash (src/embeddings/cached.ts), for the
   * worker's embedder: record texts and claims embedded by an earlier run are read from disk.
   */
  readonly store: VectorStore;
}

interface ModelFile {
  file: string;
  vectors: Map<string, number[]>;
  /** The file ends mid-line: the next append starts on a line of its own. */
  torn: boolean;
}

export function openEmbeddingCache(dir: string): EmbeddingCache {
  const files = new Map<string, Promise<ModelFile>>();
  const fileOf = (model: string): Promise<ModelFile> => {
    let loaded = files.get(model);
    if (!loaded) {
      loaded = loadModelFile(path.join(dir, fileName(model)));
      files.set(model, loaded);
    }
    return loaded;
  };
  const counts = { cached: 0, embedded: 0 };
  // Keyed apart from the baseline's entries (which hash the text itself): a hash is not a text.
  const storeKey = (model: string, hash: string): string => keyOf(`${model}#hashed`, hash);
  const store: VectorStore = {
    async get(model, hashes) {
      const cache = await fileOf(model);
      const found = new Map<string, number[]>();
      for (const hash of hashes) {
        const vector = cache.vectors.get(storeKey(model, hash));
        if (vector) found.set(hash, vector);
      }
      return found;
    },
    async put(model, items) {
      const cache = await fileOf(model);
      const keys = items.map(({ hash, embedding }) => {
        const key = storeKey(model, hash);
        cache.vectors.set(key, embedding);
        return key;
      });
      await appendVectors(dir, cache, keys);
    },
  };
  return {
    counts,
    store,
    async passages(embedder, texts) {
      const model = `${embedder.name}/${embedder.dimension}`;
      const cache = await fileOf(model);
      const keys = texts.map((t) => keyOf(model, t));
      const missing = [...new Set(keys.filter((k) => !cache.vectors.has(k)))];
      const textOf = new Map(keys.map((k, i) => [k, texts[i] as string]));
      // Written chunk by chunk: a run that fails halfway (a server timing out) keeps what it embedded.
      for (let at = 0; at < missing.length; at += CHUNK) {
        const chunk = missing.slice(at, at + CHUNK);
        const fresh = await embedder.embed(
          chunk.map((k) => textOf.get(k) as string),
          { kind: 'passage' },
        );
        chunk.forEach((k, i) => cache.vectors.set(k, fresh[i] as number[]));
        await appendVectors(dir, cache, chunk);
      }
      counts.embedded += missing.length;
      counts.cached += keys.length - missing.length;
      return { vectors: keys.map((k) => cache.vectors.get(k) as number[]), embedded: missing.length };
    },
  };
}

/** Texts embedded and appended at a time. */
const CHUNK = 256;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The model is part of the key and of the file name: vectors of two models never mix. */
const keyOf = (model: string, text: string): string => sha256(`${model}\n${text}`);

const fileName = (model: string): string =>
  `embeddings-${model.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80)}-${sha256(model).slice(0, 12)}.jsonl`;

async function loadModelFile(file: string): Promise<ModelFile> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const vectors = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    const entry = parseLine(line);
    if (entry) vectors.set(entry.key, entry.vector);
  }
  return { file, vectors, torn: text.length > 0 && !text.endsWith('\n') };
}

function parseLine(line: string): { key: string; vector: number[] } | undefined {
  if (line.trim() === '') return undefined;
  try {
    const { key, vector } = JSON.parse(line) as { key?: unknown; vector?: unknown };
    if (typeof key !== 'string' || typeof vector !== 'string') return undefined;
    const bytes = Buffer.from(vector, 'base64');
    if (bytes.length === 0 || bytes.length % 8 !== 0) return undefined;
    const floats = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
    return { key, vector: Array.from(floats) };
  } catch {
    return undefined;
  }
}

async function appendVectors(dir: string, cache: ModelFile, keys: readonly string[]): Promise<void> {
  const lines = keys.map((key) => {
    const floats = Float64Array.from(cache.vectors.get(key) as number[]);
    const vector = Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
    return `${JSON.stringify({ key, vector })}\n`;
  });
  await mkdir(dir, { recursive: true });
  await appendFile(cache.file, `${cache.torn ? '\n' : ''}${lines.join('')}`);
  cache.torn = false;
}
