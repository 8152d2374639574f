import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

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
}

/** Serves a Hono app on Node's http server and resolves once it is listening. */
export async function listen(app: Hono, options: ListenOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        close: () => new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done()))),
      });
    });
    server.once('error', reject);
  });
}
