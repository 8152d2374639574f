import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddingUnavailableError, type EmbedKind, type Embedder } from './embedder.ts';

/** How an embedder splits, parallelises and retries its requests. */
export interface BatchingOptions {
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** Requests in flight at once (small local servers serialise anyway). @default 2 */
  concurrency?: number;
  /** Attempts per request, the first included. @default 5 */
  maxAttempts?: number;
  /** First retry delay, doubled each attempt, with jitter. @default 250 */
  baseDelayMs?: number;
  /** Cap of one retry delay. @default 5000 */
  maxDelayMs?: number;
}

export const DEFAULT_BATCHING: Required<BatchingOptions> = {
  batchSize: 64,
  concurrency: 2,
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 5000,
};

/** Defaults for every option the caller left out (an explicit `undefined` counts as left out). */
export function resolveBatching(options: BatchingOptions = {}): Required<BatchingOptions> {
  const o = { ...DEFAULT_BATCHING };
  for (const key of Object.keys(o) as Array<keyof BatchingOptions>) {
    const v = options[key];
    if (v !== undefined) {
      if (!Number.isInteger(v) || v < (key === 'baseDelayMs' || key === 'maxDelayMs' ? 0 : 1))
        throw new RangeError(`embedding ${key} must be a positive integer, got ${v}`);
      o[key] = v;
    }
  }
  return o;
}

const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);
const TRANSIENT_NAMES = new Set(['APIConnectionError', 'APIConnectionTimeoutError', 'TimeoutError', 'AbortError']);

/**
 * Transient: worth retrying the same request. 408/409/425/429/5xx, connection resets and
 * refusals (a server restarting), timeouts — looked up along the `cause` chain, since fetch
 * wraps socket errors in "fetch failed". Anything else (4xx, a bad answer) is permanent.
 */
export function isTransient(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { status?: unknown; status_code?: unknown; code?: unknown; name?: unknown };
    const status =
      typeof x.status === 'number' ? x.status : typeof x.status_code === 'number' ? x.status_code : undefined;
    if (status !== undefined)
      return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
    if (typeof x.code === 'string' && TRANSIENT_CODES.has(x.code)) return true;
    if (typeof x.name === 'string' && TRANSIENT_NAMES.has(x.name)) return true;
    // The OpenAI SDK's error classes keep the default name "Error"; their class names are stable.
    if (TRANSIENT_NAMES.has((e as object).constructor?.name ?? '')) return true;
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  }
  return false;
}

/** Capped exponential backoff with full jitter in the upper half, so two clients do not retry in step. */
export function backoffMs(
  attempt: number,
  o: Pick<Required<BatchingOptions>, 'baseDelayMs' | 'maxDelayMs'>,
  random = Math.random,
): number {
  const ceiling = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Calls `fn` until it succeeds, a permanent error occurs, or attempts run out (then EmbeddingUnavailableError). */
export async function withRetries<T>(fn: () => Promise<T>, source: string, options: BatchingOptions = {}): Promise<T> {
  const o = resolveBatching(options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransient(error)) throw error;
      if (attempt >= o.maxAttempts) {
        throw new EmbeddingUnavailableError(
          `${source}: ${attempt} attempts failed, last: ${(error as Error).message}`,
          { cause: error },
        );
      }
      await sleep(backoffMs(attempt, o));
    }
  }
}

/**
 * Embeds `texts` in batches of `batchSize` with at most `concurrency` requests in flight, each
 * retried on transient errors; results come back in input order. The first permanent error
 * fails the whole call (no partial result: callers write vectors only for a complete page).
 */
export async function embedInBatches(
  texts: readonly string[],
  call: (batch: string[]) => Promise<number[][]>,
  source: string,
  options: BatchingOptions = {},
): Promise<number[][]> {
  const o = resolveBatching(options);
  const batches: string[][] = [];
  for (let i = 0; i < texts.length; i += o.batchSize) batches.push(texts.slice(i, i + o.batchSize));
  const results: number[][][] = new Array<number[][]>(batches.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < batches.length) {
      const index = next++;
      try {
        results[index] = await embedSplittingTooLarge(batches[index] as string[], call, source, o);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const lanes = Array.from({ length: Math.min(o.concurrency, batches.length) }, () => lane());
  const settled = await Promise.allSettled(lanes);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results.flat();
}

/** The HTTP status of an error or of one of its causes, when it has one. */
function statusOf(error: unknown): number | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { status?: unknown; status_code?: unknown };
    if (typeof x.status === 'number') return x.status;
    if (typeof x.status_code === 'number') return x.status_code;
  }
  return undefined;
}

/**
 * One batch, retried on transient errors. A server that refuses the batch as too large (413:
 * TEI accepts 32 inputs by default, for example) gets it again in halves, down to single texts,
 * so a smaller server limit costs requests, not the run.
 */
async function embedSplittingTooLarge(
  batch: string[],
  call: (batch: string[]) => Promise<number[][]>,
  source: string,
  o: Required<BatchingOptions>,
): Promise<number[][]> {
  try {
    return await withRetries(() => call(batch), source, o);
  } catch (error) {
    if (statusOf(error) !== 413 || batch.length < 2) throw error;
    const half = Math.ceil(batch.length / 2);
    const first = await embedSplittingTooLarge(batch.slice(0, half), call, source, o);
    return [...first, ...(await embedSplittingTooLarge(batch.slice(half), call, source, o))];
  }
}

/** The time one request may take: a base for the round trip plus an allowance per input character. */
export function requestTimeoutMs(
  input: readonly string[] | number,
  options: { timeoutMs?: number | undefined; timeoutPerKiloCharMs?: number | undefined },
): number {
  const chars = typeof input === 'number' ? input : input.reduce((n, text) => n + text.length, 0);
  return (options.timeoutMs ?? 30_000) + Math.ceil((chars / 1000) * (options.timeoutPerKiloCharMs ?? 5_000));
}

/** An Embedder from one request function: batching, bounded concurrency and retries as above; passages unless asked otherwise. */
export function batchedEmbedder(
  source: string,
  dimension: number,
  request: (batch: string[], kind: EmbedKind) => Promise<number[][]>,
  options: BatchingOptions,
): Embedder {
  return {
    name: source,
    dimension,
    embed: (texts, embedOptions) =>
      embedInBatches(texts, (batch) => request(batch, embedOptions?.kind ?? 'passage'), source, options),
  };
}
