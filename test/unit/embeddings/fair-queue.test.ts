import { describe, expect, it } from 'vitest';
import { embedInBatches } from '../../../src/embeddings/batching.ts';
import { FairQueue } from '../../../src/embeddings/fair-queue.ts';

/** A task that records when it starts and on which server, and finishes when the test says so. */
function controlled() {
  const started: Array<{ name: string; server: number }> = [];
  const finishers = new Map<string, () => void>();
  const task =
    (name: string) =>
    (server: number): Promise<string> => {
      started.push({ name, server });
      return new Promise((resolve) => finishers.set(name, () => resolve(name)));
    };
  const finish = async (name: string): Promise<void> => {
    finishers.get(name)?.();
    // Let the queue's continuation run and start the next request.
    await new Promise((r) => setImmediate(r));
  };
  return { started, task, finish };
}

/** Tasks start on a later microtask; a macrotask later they all have. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('FairQueue', () => {
  it("starts another tenant's request after one of a large backlog, not after all of it", async () => {
    const q = new FairQueue(1, 1);
    const { started, task, finish } = controlled();
    const big = Array.from({ length: 10 }, (_, i) => q.run('tenant-a', task(`a${i}`)));
    const small = q.run('tenant-b', task('b0'));
    await tick();
    expect(started.map((s) => s.name)).toEqual(['a0']);
    await finish('a0');
    expect(started.map((s) => s.name)).toEqual(['a0', 'b0']);
    await finish('b0');
    await expect(small).resolves.toBe('b0');
    for (let i = 1; i < 10; i++) await finish(`a${i}`);
    await expect(Promise.all(big)).resolves.toHaveLength(10);
  });

  it('gives a free slot to the lane served least recently, newcomers first', async () => {
    const q = new FairQueue(1, 1);
    const { started, task, finish } = controlled();
    for (let i = 0; i < 3; i++) void q.run('a', task(`a${i}`));
    for (let i = 0; i < 3; i++) void q.run('b', task(`b${i}`));
    void q.run('c', task('c0'));
    await tick();
    for (const name of ['a0', 'b0', 'c0', 'a1', 'b1', 'a2']) await finish(name);
    expect(started.map((s) => s.name)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'b2']);
  });

  it('spreads requests over servers and bounds those in flight on each', async () => {
    const q = new FairQueue(2, 1);
    const { started, task, finish } = controlled();
    for (let i = 0; i < 4; i++) void q.run('a', task(`a${i}`));
    await tick();
    expect(started).toEqual([
      { name: 'a0', server: 0 },
      { name: 'a1', server: 1 },
    ]);
    await finish('a1');
    expect(started[2]).toEqual({ name: 'a2', server: 1 });
    expect(q.waiting().get('a')).toBe(1);
  });

  it('frees the slot of a task that fails, even synchronously', async () => {
    const q = new FairQueue(1, 1);
    const failing = q.run('a', () => {
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    await expect(q.run('a', async () => 'next')).resolves.toBe('next');
  });
});

describe('embedInBatches through a shared queue', () => {
  it("finishes a small tenant's call long before a large one that started first", async () => {
    const queue = new FairQueue(1, 1);
    const order: string[] = [];
    const call = async (batch: string[]): Promise<number[][]> => {
      await new Promise((r) => setTimeout(r, 5));
      order.push(batch[0] as string);
      return batch.map(() => [1, 0]);
    };
    const large = embedInBatches(
      Array.from({ length: 40 }, (_, i) => `large ${i}`),
      call,
      'test',
      { batchSize: 4 },
      { queue, lane: 'large' },
    );
    const small = embedInBatches(['small 0'], call, 'test', { batchSize: 4 }, { queue, lane: 'small' });
    await small;
    // One batch of the large call was in flight when the small one arrived; the small one is next,
    // not after the other nine.
    expect(order).toEqual(['large 0', 'small 0']);
    await expect(large).resolves.toHaveLength(40);
  });

  it('splits a call into at least one batch per server', async () => {
    const queue = new FairQueue(2, 1);
    const sizes: number[] = [];
    const servers = new Set<number>();
    await embedInBatches(
      Array.from({ length: 20 }, (_, i) => `t${i}`),
      async (batch, server) => {
        sizes.push(batch.length);
        servers.add(server);
        await new Promise((r) => setTimeout(r, 5));
        return batch.map(() => [1]);
      },
      'test',
      { batchSize: 64 },
      { queue, lane: 'a' },
    );
    expect(sizes).toEqual([10, 10]);
    expect([...servers].sort()).toEqual([0, 1]);
  });
});
