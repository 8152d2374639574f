import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedCli } from '../helpers/embedded-cli.ts';

// `nocturne index records` as a user runs it: the embedded store, a file archive, real processes.
const { dir, nocturne, cleanup } = embeddedCli('index-cli');
afterAll(cleanup);

const record = (id: string, kind: string, text: string, at: string) =>
  JSON.stringify({
    id,
    tenantId: 'acme',
    userId: 'u-dan',
    agentId: 'travel',
    sessionId: 's1',
    kind,
    text,
    observedAt: at,
    recordedAt: at,
  });

describe('nocturne index records', () => {
  it('indexes what was archived, reports progress on stderr, and recall then returns the records', () => {
    const file = join(dir, 'records.jsonl');
    writeFileSync(
      file,
      [
        record(
          '01JCX0000000000000000000A1',
          'user_message',
          'I always want an aisle seat on long flights.',
          '2026-11-02T08:00:00Z',
        ),
        record('01JCX0000000000000000000A2', 'memory_used', 'recalled a note about seats', '2026-11-02T08:00:10Z'),
      ].join('\n'),
    );
    expect(nocturne('archive', 'put', '--tenant', 'acme', file).code).toBe(0);
    const first = nocturne('index', 'records', '--tenant', 'acme');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('1 record(s) indexed');
    expect(first.stderr).toContain('indexing acme');
    const rebuilt = JSON.parse(nocturne('index', 'records', '--tenant', 'acme', '--rebuild', '--json').stdout);
    expect(rebuilt).toMatchObject({ dropped: 1, records: 1, embedded: 0 });
    const recalled = JSON.parse(nocturne('recall', '--tenant', 'acme', '--query', 'aisle seat', '--json').stdout);
    expect(recalled.records.map((r: { text: string }) => r.text)).toEqual([
      'I always want an aisle seat on long flights.',
    ]);
    expect(recalled.ranking).toEqual([{ type: 'record', id: '01JCX0000000000000000000A1' }]);
  }, 240_000);

  it('exits 2 on a bad tenant or a window with --rebuild', () => {
    expect(nocturne('index', 'records', '--tenant', 'bad tenant').code).toBe(2);
    expect(nocturne('index', 'records', '--tenant', 'acme', '--rebuild', '--to', '2026-11-02T00:00:00Z').code).toBe(2);
  }, 60_000);
});
