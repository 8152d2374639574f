import type { MiddlewareHandler } from 'hono';
import { DEFAULT_API_LIMITS, type ApiLimits } from '../config.ts';
import { fail, type ApiEnv } from './http.ts';

export interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket: it refills at `rate` per second up to `burst`, and a request takes one token.
 * Pure, so the arithmetic is tested without a clock. `retryAfterMs` is when the next token exists.
 */
export function takeToken(
  bucket: Bucket | undefined,
  now: number,
  limits: { ratePerSecond: number; burst: number },
): { bucket: Bucket; allowed: boolean; retryAfterMs: number } {
  const elapsed = bucket ? Math.max(0, now - bucket.at) / 1000 : 0;
  const tokens = bucket ? Math.min(limits.burst, bucket.tokens + elapsed * limits.ratePerSecond) : limits.burst;
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, at: now }, allowed: true, retryAfterMs: 0 };
  const retryAfterMs = Math.ceil(((1 - tokens) / limits.ratePerSecond) * 1000);
  return { bucket: { tokens, at: now }, allowed: false, retryAfterMs };
}

function tooMany(reason: string, retryAfterMs: number): Response {
  const response = fail(429, 'rate_limited', reason);
  response.headers.set('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return response;
}

/**
 * Per-token rate limit, concurrency cap and deadline, after authentication (`grant` is set).
 * A request past its deadline is answered 504 and its signal aborted; the work it started keeps
 * the token's concurrency slot until it actually ends, so timed-out work cannot pile up.
 */
export function createLimiter(
  limits: ApiLimits = DEFAULT_API_LIMITS,
  clock: () => number = Date.now,
): MiddlewareHandler<ApiEnv> {
  const buckets = new Map<string, Bucket>();
  const inFlight = new Map<string, number>();
  return async (c, next) => {
    const key = c.get('grant').key;
    const taken = takeToken(buckets.get(key), clock(), limits);
    buckets.set(key, taken.bucket);
    if (!taken.allowed)
      return tooMany(`rate limit of ${limits.ratePerSecond}/s (burst ${limits.burst}) exceeded`, taken.retryAfterMs);
    const running = inFlight.get(key) ?? 0;
    if (running >= limits.concurrency)
      return tooMany(`this token already has ${running} requests in flight (limit ${limits.concurrency})`, 1000);
    inFlight.set(key, running + 1);
    const release = () => {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left <= 0) inFlight.delete(key);
      else inFlight.set(key, left);
    };
    const controller = new AbortController();
    c.set('signal', controller.signal);
    const work = next().finally(release);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), limits.deadlineMs);
    });
    const outcome = await Promise.race([work.then(() => 'done' as const), deadline]).finally(() => clearTimeout(timer));
    if (outcome === 'done') return;
    controller.abort(new Error(`deadline of ${limits.deadlineMs} ms exceeded`));
    work.catch(() => undefined);
    return fail(
      504,
      'deadline_exceeded',
      `the request did not finish within ${limits.deadlineMs} ms; it was abandoned`,
    );
  };
}
