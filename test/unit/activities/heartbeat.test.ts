import { MockActivityEnvironment } from '@temporalio/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { whileHeartbeating } from '../../../activities/deps.ts';

describe('whileHeartbeating', () => {
  it('heartbeats while a long call is pending and stops when it settles', async () => {
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const result = await env.run(() =>
      whileHeartbeating(
        sleep(230).then(() => 'vectors'),
        { embedded: 64 },
        50,
      ),
    );
    expect(result).toBe('vectors');
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats.every((d) => JSON.stringify(d) === '{"embedded":64}')).toBe(true);
    const after = beats.length;
    await sleep(150);
    expect(beats.length).toBe(after);
  });

  it('passes a failure through, and outside an activity just awaits', async () => {
    const env = new MockActivityEnvironment();
    await expect(
      env.run(() => whileHeartbeating(Promise.reject(new Error('server gone')), undefined, 50)),
    ).rejects.toThrow('server gone');
    await expect(whileHeartbeating(Promise.resolve(7))).resolves.toBe(7);
  });

  it('stops waiting when the activity is cancelled, and the abandoned call failing later is no unhandled rejection', async () => {
    const env = new MockActivityEnvironment();
    let failLater: (error: Error) => void = () => {};
    const pending = new Promise<string>((_, reject) => (failLater = reject));
    const run = env.run(() => whileHeartbeating(pending, undefined, 50));
    setTimeout(() => env.cancel('WORKER_SHUTDOWN'), 120);
    await expect(run).rejects.toBeInstanceOf(CancelledFailure);
    failLater(new Error('the server answered after all'));
    await sleep(20);
  });
});
