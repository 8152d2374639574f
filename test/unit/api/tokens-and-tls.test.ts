import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takeToken } from '../../../src/api/limits.ts';
import { listen } from '../../../src/api/server.ts';
import { ConfigError, parseConfig } from '../../../src/config.ts';

// Token grants as the configuration reads them, the token bucket's arithmetic, and the refusal
// to serve plain HTTP beyond loopback (with HTTPS when a certificate is configured).
const TOKEN_A = 'first-token-0123456789abcdef';
const TOKEN_B = 'second-token-0123456789abcdef';
const api = (env: Record<string, string>) => parseConfig(env).api;

describe('API token configuration', () => {
  it('reads agent, user-bound and audit tokens, keeping the old syntax', () => {
    const { tokens } = api({
      NOCTURNE_API_TOKENS: `acme:${TOKEN_A},acme/u-7:${TOKEN_B}`,
      NOCTURNE_AUDIT_TOKENS: `acme:sha256=${'ab'.repeat(32)}`,
    });
    expect(tokens.map(({ tenantId, role, userId }) => ({ tenantId, role, userId }))).toEqual([
      { tenantId: 'acme', role: undefined, userId: undefined },
      { tenantId: 'acme', role: undefined, userId: 'u-7' },
      { tenantId: 'acme', role: 'audit', userId: undefined },
    ]);
  });

  it.each([
    [
      'twice for one tenant',
      { NOCTURNE_API_TOKENS: `acme:${TOKEN_A},beta:${TOKEN_B},acme:${TOKEN_A}` },
      /NOCTURNE_API_TOKENS entry 1 and NOCTURNE_API_TOKENS entry 3 hold the same token/,
    ],
    [
      'for two tenants',
      { NOCTURNE_API_TOKENS: `acme:${TOKEN_A},beta:${TOKEN_A}` },
      /entry 1 and NOCTURNE_API_TOKENS entry 2/,
    ],
    [
      'as agent and audit token',
      { NOCTURNE_API_TOKENS: `acme:${TOKEN_A}`, NOCTURNE_AUDIT_TOKENS: `acme:${TOKEN_A}` },
      /NOCTURNE_API_TOKENS entry 1 and NOCTURNE_AUDIT_TOKENS entry 1/,
    ],
  ])('refuses a token given %s, naming positions and never the token', (_, env, message) => {
    expect(() => api(env)).toThrow(ConfigError);
    expect(() => api(env)).toThrow(message);
    try {
      api(env);
    } catch (error) {
      expect((error as Error).message).not.toContain(TOKEN_A);
    }
  });

  it('reads the limits with defaults, and TLS only as a pair', () => {
    expect(api({}).limits).toEqual({ ratePerSecond: 20, burst: 40, concurrency: 8, deadlineMs: 15_000 });
    expect(api({ NOCTURNE_API_RATE_PER_SECOND: '2.5', NOCTURNE_API_DEADLINE_MS: '500' }).limits).toMatchObject({
      ratePerSecond: 2.5,
      deadlineMs: 500,
    });
    expect(() => api({ NOCTURNE_API_TLS_CERT: '/etc/cert.pem' })).toThrow(/set both or neither/);
    expect(api({ NOCTURNE_API_ALLOW_PLAINTEXT: 'true' }).allowPlaintext).toBe(true);
  });
});

describe('token bucket', () => {
  const limits = { ratePerSecond: 2, burst: 3 };
  it.each([
    ['a new token starts full', undefined, 0, true, 2, 0],
    ['one left is taken', { tokens: 1, at: 0 }, 0, true, 0, 0],
    ['empty: the next token is 500 ms away', { tokens: 0, at: 0 }, 0, false, 0, 500],
    ['half a token: 250 ms away', { tokens: 0, at: 0 }, 250, false, 0.5, 250],
    ['refilled after 500 ms', { tokens: 0, at: 0 }, 500, true, 0, 0],
    ['never above the burst', { tokens: 0, at: 0 }, 60_000, true, 2, 0],
  ])('%s', (_, bucket, now, allowed, left, retryAfterMs) => {
    const taken = takeToken(bucket, now, limits);
    expect(taken.allowed).toBe(allowed);
    expect(taken.bucket.tokens).toBeCloseTo(left);
    expect(taken.retryAfterMs).toBe(retryAfterMs);
  });
});

describe('listening beyond loopback', () => {
  const app = { fetch: () => new Response('ok') };
  const dir = mkdtempSync(join(tmpdir(), 'nocturne-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses plain HTTP on a non-loopback host unless allowed explicitly', async () => {
    await expect(listen(app, { host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /refusing to serve plain HTTP on 0\.0\.0\.0/,
    );
    const server = await listen(app, { host: '0.0.0.0', port: 0, allowPlaintext: true });
    await server.close();
  });

  it('serves HTTPS beyond loopback with a configured certificate', async () => {
    const [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    const server = await listen(app, { host: '0.0.0.0', port: 0, tls: { certFile, keyFile } });
    try {
      expect(server.url).toMatch(/^https:\/\//);
      const body = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port: server.port, path: '/', rejectUnauthorized: false }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      expect(body).toBe('ok');
    } finally {
      await server.close();
    }
  });
});
