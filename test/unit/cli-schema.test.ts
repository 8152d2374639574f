import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { applyNoteBatch, migrationNames } from '../../src/db/index.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { createOp, freshNoteId } from '../helpers/notes.ts';
import { embeddedCli } from '../helpers/embedded-cli.ts';

// `nocturne schema` as an operator runs it before starting an earlier release: the embedded
// store with a note in it, a real process.
const { env, nocturne, cleanup } = embeddedCli('schema-cli');
afterAll(cleanup);
const all = migrationNames();
const noteId = freshNoteId();

beforeAll(async () => {
  const db = await openNoteStore(parseConfig(env));
  try {
    await applyNoteBatch(db, {
      tenantId: 'acme',
      runId: 'seed',
      batchNo: 0,
      actor: 'consolidate/test',
      ops: [createOp(noteId, { kind: 'fact', claim: 'The billing API returns amounts in cents.' })],
    });
  } finally {
    await db.close();
  }
}, 120_000);

describe('nocturne schema', () => {
  it('status names what is applied, what is pending and how far back the store can go', () => {
    const r = nocturne('schema', 'status');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`applied: ${all.length}, ${all[0]} to ${all.at(-1)}`);
    expect(r.stdout).toContain('pending: none');
    expect(r.stdout).toMatch(/revertible: the newest \d+, back to 0016_keyed-audit/);
  });

  it('refuses a count past the last down section, or not a number, and reverts nothing', () => {
    const past = nocturne('schema', 'revert', '--count', String(all.length));
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(
      /only the newest \d+ applied migrations can be reverted \(0016_keyed-audit has no down section\); nothing reverted/,
    );
    const word = nocturne('schema', 'revert', '--count', 'two');
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('--count: a positive integer, got two');
    const status = JSON.parse(nocturne('schema', 'status', '--json').stdout) as { applied: string[] };
    expect(status.applied).toEqual(all);
  });

  it('without --yes, lists what it would revert and the data those down sections drop, and reverts nothing', () => {
    const revertible = all.filter((name) => name > '0016_keyed-audit');
    const r = nocturne('schema', 'revert', '--count', String(revertible.length));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`would revert ${revertible.length}: ${[...revertible].reverse().join(', ')}`);
    expect(r.stdout).toContain('loses data: DROP TABLE erasure_requests (0017_erasure-lock-and-handles)');
    expect(r.stdout).toContain('loses data: ALTER TABLE record_index DROP COLUMN told (0022_record-index-told)');
    expect(r.stdout).toContain('nothing reverted: run again with --yes');
    expect(JSON.parse(nocturne('schema', 'status', '--json').stdout)).toMatchObject({ applied: all, pending: [] });
  });

  it('reverts the newest migrations, and the next start applies them again with the note kept', () => {
    const r = nocturne('schema', 'revert', '--count', '2', '--yes', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { reverted: string[]; pending: string[] };
    expect(out.reverted).toEqual(all.slice(-2).reverse());
    expect(out.pending).toEqual(all.slice(-2));
    const found = nocturne('notes', 'find', '--tenant', 'acme', '--text', 'billing API');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain(noteId);
    expect(JSON.parse(nocturne('schema', 'status', '--json').stdout)).toMatchObject({ applied: all, pending: [] });
  });
});
