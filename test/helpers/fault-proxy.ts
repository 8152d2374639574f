import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../policies/random.ts';

/**
 * A loopback TCP proxy that misbehaves on purpose, in front of PostgreSQL or S3, so the
 * fault suite can show what a run does when a server or the network does. Every decision is
 * drawn from a seeded generator, so a failing trial can be replayed with its seed.
 *
 * - `reset`: each forwarded chunk destroys both sockets with probability `p` (a connection reset).
 * - `latency`: each chunk is held for `minMs`..`maxMs` before it is forwarded (order kept).
 * - `blackhole`: a chunk sent to the server starts, with probability `p`, `ms` in which nothing
 *   is forwarded either way on that connection; then both sockets are destroyed (a partition
 *   that ends the way a TCP timeout would).
 * - `http503`: a chunk that starts an HTTP request is answered, with probability `p`, with S3's
 *   503 SlowDown instead of being forwarded, and the connection is closed (no request of the
 *   client is in flight then: HTTP/1.1 clients do not pipeline).
 * - `vanished`: a GET whose path matches is answered with S3's 404 NoSuchKey: an object that
 *   was listed and then deleted before it was read.
 */
export type Fault =
  | { kind: 'none' }
  | { kind: 'reset'; p: number }
  | { kind: 'latency'; minMs: number; maxMs: number }
  | { kind: 'blackhole'; p: number; ms: number }
  | { kind: 'http503'; p: number }
  | { kind: 'vanished'; path: RegExp };

export interface FaultStats {
  connections: number;
  resets: number;
  delayedChunks: number;
  blackholed: number;
  slowDowns: number;
  notFound: number;
}

export interface FaultProxy {
  port: number;
  /** host:port to give a client instead of the real server. */
  address: string;
  stats: FaultStats;
  /** Changes the fault for everything from now on (open connections included). */
  setFault(fault: Fault): void;
  close(): Promise<void>;
}

const HTTP_REQUEST = /^(GET|PUT|POST|HEAD|DELETE) /;
const httpResponse = (status: string, body: string) =>
  [
    `HTTP/1.1 ${status}`,
    'Content-Type: application/xml',
    'Connection: close',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
const NO_SUCH_KEY = httpResponse(
  '404 Not Found',
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
);
const SLOW_DOWN = httpResponse(
  '503 Slow Down',
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
);

export async function startFaultProxy(target: { host: string; port: number }, seed: number): Promise<FaultProxy> {
  const random = seededRandom(seed);
  let fault: Fault = { kind: 'none' };
  const stats: FaultStats = {
    connections: 0,
    resets: 0,
    delayedChunks: 0,
    blackholed: 0,
    slowDowns: 0,
    notFound: 0,
  };
  const open = new Set<Socket>();

  const server: Server = createServer((client) => {
    stats.connections++;
    const upstream = createConnection(target);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on('error', drop);
      s.on('close', () => {
        open.delete(s);
        drop();
      });
    }
    const connection = { blackholedUntil: 0 };
    pipeWithFaults(client, upstream, () => fault, random, stats, connection, drop, 'up');
    pipeWithFaults(upstream, client, () => fault, random, stats, connection, drop, 'down');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    stats,
    setFault: (next) => {
      fault = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The HTTP error to answer a request chunk with instead of forwarding it, if the fault says so. */
function cannedAnswer(fault: Fault, chunk: Buffer, random: () => number, stats: FaultStats): string | undefined {
  const head = chunk.subarray(0, 2048).toString('latin1');
  if (!HTTP_REQUEST.test(head)) return undefined;
  if (fault.kind === 'http503' && random() < fault.p) {
    stats.slowDowns++;
    return SLOW_DOWN;
  }
  const target = head.slice(0, head.indexOf('\r\n'));
  if (fault.kind === 'vanished' && target.startsWith('GET ') && fault.path.test(decodeURIComponent(target))) {
    stats.notFound++;
    return NO_SUCH_KEY;
  }
  return undefined;
}

/** Forwards `from` → `to` chunk by chunk, in order, applying the current fault to each chunk. */
function pipeWithFaults(
  from: Socket,
  to: Socket,
  currentFault: () => Fault,
  random: () => number,
  stats: FaultStats,
  connection: { blackholedUntil: number },
  drop: () => void,
  direction: 'up' | 'down',
): void {
  let chain = Promise.resolve();
  from.on('data', (chunk: Buffer) => {
    const fault = currentFault();
    if (Date.now() < connection.blackholedUntil) return;
    const answer = direction === 'up' ? cannedAnswer(fault, chunk, random, stats) : undefined;
    if (answer) {
      from.end(answer);
      to.destroy();
      return;
    }
    if (direction === 'up' && fault.kind === 'blackhole' && random() < fault.p) {
      stats.blackholed++;
      connection.blackholedUntil = Date.now() + fault.ms;
      setTimeout(drop, fault.ms).unref();
      return;
    }
    if (fault.kind === 'reset' && random() < fault.p) {
      stats.resets++;
      drop();
      return;
    }
    const delay = fault.kind === 'latency' ? fault.minMs + random() * (fault.maxMs - fault.minMs) : 0;
    if (delay > 0) stats.delayedChunks++;
    from.pause();
    chain = chain
      .then(() => (delay > 0 ? new Promise<void>((r) => setTimeout(r, delay)) : undefined))
      .then(() => {
        if (!to.destroyed) to.write(chunk);
        from.resume();
      });
  });
}
