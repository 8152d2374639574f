import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { applyNoteBatch } from '../../src/db/index.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { createOp, freshNoteId } from '../helpers/notes.ts';
import { embeddedCli } from '../helpers/embedded-cli.ts';

// `nocturne notes find` as an operator runs it after a bad answer: the embedded store, a real process.
const { env, nocturne, cleanup } = embeddedCli('find-cli');
afterAll(cleanup);

const cents = freshNoteId();
const dollars = freshNoteId();
const other = freshNoteId();

beforeAll(async () => {
  const db = await openNoteStore(parseConfig(env));
  try {
    const batch = { tenantId: 'acme', runId: 'seed', actor: 'consolidate/test' };
    await applyNoteBatch(db, {
      ...batch,
      batchNo: 0,
      ops: [
        createOp(cents, { kind: 'fact', claim: 'The billing API returns amounts in cents.' }),
        createOp(dollars, { kind: 'fact', claim: 'The billing API returns amounts already in dollars.' }),
        createOp(other, { kind: 'tool_behavior', claim: 'The export tool times out above 10 MB.' }),
      ],
    });
    await applyNoteBatch(db, {
      ...batch,
      batchNo: 1,
      ops: [{ op: 'newVersion', action: 'supersede', noteId: cents, expectedVersion: 1, supersededBy: dollars }],
    });
  } finally {
    await db.close();
  }
}, 120_000);

describe('nocturne notes find --text', () => {
  it('lists the notes whose claim has the words, whatever their status, with kind, scope, id and version', () => {
    const r = nocturne('notes', 'find', '--tenant', 'acme', '--text', 'billing API');
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => l.includes('billing API'));
    expect(rows).toHaveLength(2);
    const centsRow = rows.find((l) => l.includes(cents)) ?? '';
    expect(centsRow).toMatch(/^superseded\s+fact\s+user:user-1\s+The billing API returns amounts in cents\./);
    expect(centsRow).toMatch(new RegExp(`${cents}\\s+2\\s*$`));
    expect(rows.find((l) => l.includes(dollars))).toMatch(/^active\s+fact/);
    expect(r.stdout).not.toContain(other);
  }, 240_000);

  it('--json prints the notes; a text no claim has finds nothing; an empty text is a usage error', () => {
    const json = nocturne('notes', 'find', '--tenant', 'acme', '--text', 'DOLLARS', '--json');
    expect(JSON.parse(json.stdout).notes.map((n: { noteId: string }) => n.noteId)).toEqual([dollars]);
    expect(nocturne('notes', 'find', '--tenant', 'acme', '--text', 'kangaroo').stdout).toContain('no note of acme');
    expect(nocturne('notes', 'find', '--tenant', 'acme', '--text', '  ').code).toBe(2);
  }, 240_000);
});
