import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyNoteBatch, openDb } from '../../src/db/index.ts';
import { createOp } from '../helpers/notes.ts';
import { embeddedCli } from '../helpers/embedded-cli.ts';

// `nocturne recall` as a user runs it against the embedded store: a user's standing preferences
// are printed before the ranking, whatever the query is about.
const { dataDir, nocturne, cleanup } = embeddedCli('recall-cli');
afterAll(cleanup);

const dan = { level: 'user' as const, key: 'u-dan' };

beforeAll(async () => {
  // The notes are written straight into the store the command opens, then the store is closed:
  // the embedded database admits one process at a time.
  const db = await openDb({ kind: 'pglite', dataDir: join(dataDir, 'pglite') }, { dimension: 64 });
  try {
    const ops = [
      createOp(undefined, { scope: dan, claim: 'u-dan prefers aisle seats over window seats.', confidence: 0.9 }),
      createOp(undefined, { scope: dan, claim: 'u-dan wants receipts by email.', confidence: 0.6 }),
      createOp(undefined, {
        scope: { level: 'tenant', key: 'acme' },
        kind: 'fact',
        sourceKind: 'tool_fact',
        claim: 'The invoices API sends invoices on the first of the month.',
      }),
    ];
    await applyNoteBatch(db, { tenantId: 'acme', runId: 'run-cli', batchNo: 0, actor: 'test', ops });
  } finally {
    await db.close();
  }
}, 120_000);

describe('nocturne recall: standing preferences', () => {
  it("prints the named user's preferences first, most confident first, whatever the query", () => {
    const r = nocturne(
      'recall',
      '--tenant',
      'acme',
      '--query',
      'when are invoices sent',
      '--scope',
      'user:u-dan',
      '--scope',
      'tenant:acme',
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const heading = lines.indexOf('standing preferences:');
    expect(heading).toBe(1);
    expect(lines[heading + 1]).toMatch(/^ {2}P1 \S+ v1 \(0\.90\) u-dan prefers aisle seats over window seats\.$/);
    expect(lines[heading + 2]).toMatch(/^ {2}P2 \S+ v1 \(0\.60\) u-dan wants receipts by email\.$/);
    // The ranking still answers the query, after the preferences.
    const invoices = lines.findIndex((l) => l.includes('The invoices API sends invoices'));
    expect(invoices).toBeGreaterThan(heading + 2);
  }, 240_000);

  it('prints no preferences when no user is named', () => {
    const r = nocturne('recall', '--tenant', 'acme', '--query', 'when are invoices sent');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('standing preferences:');
    expect(r.stdout).toContain('The invoices API sends invoices');
  }, 240_000);
});
