import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Embedder, EmbedOptions } from '../../src/embeddings/embedder.ts';
import { dense } from '../../tools/eval/baselines/dense.ts';
import { openEmbeddingCache } from '../../tools/eval/baselines/embedding-cache.ts';
import { countedEmbedder, emptyCounts } from '../../tools/eval/embedding-counts.ts';

/** An embedder that records what it was asked, with vectors no float32 could hold exactly. */
function countingEmbedder(name = 'test-model') {
  const asked: string[] = [];
  const embedder: Embedder = {
    name,
    dimension: 3,
    async embed(texts: readonly string[], options?: EmbedOptions) {
      asked.push(...texts.map((t) => `${options?.kind ?? 'passage'}:${t}`));
      return texts.map((t) => [t.length / 3, 1 / 3, Math.PI / (t.length + 1)]);
    },
  };
  return { embedder, asked };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'nocturne-embedding-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the dense baseline embedding cache', () => {
  it('a second run embeds nothing already embedded and gets the same vectors, bit for bit', async () => {
    const first = countingEmbedder();
    const before = await openEmbeddingCache(dir).passages(first.embedder, ['alpha', 'beta', 'alpha']);
    expect(first.asked).toEqual(['passage:alpha', 'passage:beta']);
    expect(before.embedded).toBe(2);

    const second = countingEmbedder();
    const cache = openEmbeddingCache(dir);
    const after = await cache.passages(second.embedder, ['beta', 'gamma', 'alpha']);
    expect(second.asked).toEqual(['passage:gamma']);
    expect(after.vectors).toEqual([before.vectors[1], [5 / 3, 1 / 3, Math.PI / 6], before.vectors[0]]);
    expect(cache.counts).toEqual({ cached: 2, embedded: 1 });
  });

  it('keeps models apart: the same text under another model is embedded again', async () => {
    await openEmbeddingCache(dir).passages(countingEmbedder('model-a').embedder, ['alpha']);
    const other = countingEmbedder('model-b');
    await openEmbeddingCache(dir).passages(other.embedder, ['alpha']);
    expect(other.asked).toEqual(['passage:alpha']);
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('survives a truncated last line: that text is embedded again and later lines stay readable', async () => {
    await openEmbeddingCache(dir).passages(countingEmbedder().embedder, ['alpha', 'beta']);
    const [file] = await readdir(dir);
    const full = path.join(dir, file as string);
    const text = await readFile(full, 'utf8');
    await writeFile(full, text.slice(0, text.length - 20));

    const again = countingEmbedder();
    await openEmbeddingCache(dir).passages(again.embedder, ['alpha', 'beta', 'gamma']);
    expect(again.asked).toEqual(['passage:beta', 'passage:gamma']);
    const third = countingEmbedder();
    await openEmbeddingCache(dir).passages(third.embedder, ['alpha', 'beta', 'gamma']);
    expect(third.asked).toEqual([]);
    await appendFile(full, 'not json\n');
    await expect(openEmbeddingCache(dir).passages(third.embedder, ['gamma'])).resolves.toMatchObject({ embedded: 0 });
  });

  it('the dense baseline ranks the same with and without the cache, and embeds queries every time', async () => {
    const turns = ['a', 'bbbb', 'cc'].map((text, i) => ({ goldId: `${i}`, goldSession: 's', text, observedAt: '' }));
    const plain = countingEmbedder();
    const uncached = await (await dense(turns, plain.embedder)).search('ccc', 3);
    const cache = openEmbeddingCache(dir);
    await dense(turns, countingEmbedder().embedder, cache);
    const warm = countingEmbedder();
    const cached = await (await dense(turns, warm.embedder, openEmbeddingCache(dir))).search('ccc', 3);
    expect(cached).toEqual(uncached);
    expect(warm.asked).toEqual(['query:ccc']);
  });
});

describe('a run that fails halfway', () => {
  it('keeps the chunks embedded before the failure', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `turn ${i}`);
    let calls = 0;
    const failing: Embedder = {
      name: 'flaky',
      dimension: 1,
      async embed(batch) {
        calls += 1;
        if (calls === 3) throw new Error('Request timed out.');
        return batch.map(() => [1]);
      },
    };
    await expect(openEmbeddingCache(dir).passages(failing, texts)).rejects.toThrow(/timed out/);
    const asked: number[] = [];
    const healthy: Embedder = { ...failing, embed: async (batch) => (asked.push(batch.length), batch.map(() => [1])) };
    await openEmbeddingCache(dir).passages(healthy, texts);
    expect(asked).toEqual([600 - 512]);
  });
});

describe("the worker's embedder in an evaluation", () => {
  it('embeds no passage a run before embedded, counts what reached the model, and always embeds questions', async () => {
    const first = countingEmbedder();
    const firstCounts = emptyCounts();
    const one = countedEmbedder(first.embedder, openEmbeddingCache(dir).store, firstCounts);
    const vectors = await one.embed(['claim a', 'record b']);
    await one.embed(['a question'], { kind: 'query' });
    expect(firstCounts).toEqual({ passagesEmbedded: 2, passagesAsked: 2, queriesEmbedded: 1, queriesAsked: 0 });

    const second = countingEmbedder();
    const secondCounts = emptyCounts();
    const two = countedEmbedder(second.embedder, openEmbeddingCache(dir).store, secondCounts);
    expect(await two.embed(['claim a', 'record b'])).toEqual(vectors);
    await two.embed(['a question'], { kind: 'query' });
    expect(second.asked).toEqual(['query:a question']);
    expect(secondCounts).toEqual({ passagesEmbedded: 0, passagesAsked: 2, queriesEmbedded: 1, queriesAsked: 0 });
  });

  it('with cacheQueries, embeds a question once across runs, as a query, apart from the same text as a passage', async () => {
    const first = countingEmbedder();
    const one = countedEmbedder(first.embedder, openEmbeddingCache(dir).store, emptyCounts(), true);
    const [asQuery] = await one.embed(['same text'], { kind: 'query' });
    await one.embed(['same text']);
    expect(first.asked).toEqual(['query:same text', 'passage:same text']);

    const second = countingEmbedder();
    const counts = emptyCounts();
    const two = countedEmbedder(second.embedder, openEmbeddingCache(dir).store, counts, true);
    expect(await two.embed(['same text'], { kind: 'query' })).toEqual([asQuery]);
    expect(second.asked).toEqual([]);
    expect(counts).toMatchObject({ queriesAsked: 1, queriesEmbedded: 0 });
  });
});
