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
}

/** What `listen` serves: a Hono app, or anything that answers web-standard requests. */
export interface FetchApp {
  fetch(request: Request): Response | Promise<Response>;
}

/** Serves an app on Node's http server and resolves once it is listening. */
export async function listen(app: FetchApp, options: ListenOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (request: Request) => app.fetch(request), hostname: host, port: options.port ?? 8787 },
      (info: AddressInfo) => {
        const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          close: () => new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done()))),
        });
      },
    );
    server.once('error', reject);
  });
}
