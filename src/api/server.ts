import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8787 */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** @default '127.0.0.1' — loopback; exposing the API is an explicit operator choice. */
  host?: string;
  /** 0 picks a free port. @default 8787 */
  port?: number;
  /** PEM certificate and key files: serve HTTPS. */
  tls?: { certFile: string; keyFile: string };
  /** Plain HTTP beyond loopback (a private network, a TLS proxy in front): must be chosen explicitly. */
  allowPlaintext?: boolean;
}

/** What `listen` serves: a Hono app, or anything that answers web-standard requests. */
export interface FetchApp {
  fetch(request: Request): Response | Promise<Response>;
}

export class PlaintextRefusedError extends Error {
  override name = 'PlaintextRefusedError';
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** Bearer tokens cross the network in every request: beyond loopback they need TLS, or an explicit opt-out. */
export function assertSafeBinding(host: string, options: Pick<ListenOptions, 'tls' | 'allowPlaintext'>): void {
  if (isLoopback(host) || options.tls || options.allowPlaintext) return;
  throw new PlaintextRefusedError(
    `refusing to serve plain HTTP on ${host} (beyond loopback): set NOCTURNE_API_TLS_CERT and NOCTURNE_API_TLS_KEY, ` +
      'or NOCTURNE_API_ALLOW_PLAINTEXT=true when a private network or a TLS proxy protects it',
  );
}

/** Serves an app on Node's http (or, with `tls`, https) server and resolves once it is listening. */
export async function listen(app: FetchApp, options: ListenOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  assertSafeBinding(host, options);
  const tls = options.tls
    ? {
        createServer: createHttpsServer,
        serverOptions: { cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) },
      }
    : {};
  const scheme = options.tls ? 'https' : 'http';
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (request: Request) => app.fetch(request), hostname: host, port: options.port ?? 8787, ...tls },
      (info: AddressInfo) => {
        const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `${scheme}://${shownHost}:${info.port}`,
          port: info.port,
          close: () => new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done()))),
        });
      },
    );
    server.once('error', reject);
  });
}
