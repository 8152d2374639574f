import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditHash } from '../../../src/db/audit/hash.ts';
import { type Db, openDb } from '../../../src/db/index.ts';
import { unscoped } from '../../../src/db/unscoped.ts';

// nocturne_redact_audit (migration 0012) re-links the chain with hashes the database computes;
// they must equal the writer's auditHash byte for byte, whatever the reason holds.
let db: Db;
beforeAll(async () => {
  db = await openDb({ kind: 'pglite', dataDir: ':memory:' }, { dimension: 3 });
}, 120_000);
afterAll(async () => db?.close());

const REASONS = [
  'plain',
  'quotes " and backslash \\ and slash /',
  'newline\n tab\t return\r form\f backspace\b',
  'control \u0001 \u001f and delete \u007f',
  'unicode: café, 日本語, emoji 🙂, line sep \u2028',
  '[erased sha256:' + 'a'.repeat(64) + ']',
  '',
];

describe('nocturne_audit_hash', () => {
  it.each(REASONS)('equals auditHash for the reason %j', async (reason) => {
    const entry = {
      seq: 7,
      tenantId: 't-1',
      at: '2026-03-04T05:06:07.089Z',
      actor: 'consolidate/t-1/"x"',
      action: 'revise' as const,
      noteId: 'n-1',
      fromVersion: 2,
      toVersion: null,
      reason,
      prevHash: '0'.repeat(64),
    };
    const { rows } = await unscoped(db).query(
      `SELECT nocturne_audit_hash($1, $2, $3::timestamptz, $4, $5, $6, $7, $8, $9, $10) AS h`,
      [7, entry.tenantId, entry.at, entry.actor, entry.action, entry.noteId, 2, null, reason, entry.prevHash],
    );
    expect((rows[0] as { h: string }).h).toBe(auditHash(entry));
  });
});
