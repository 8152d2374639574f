import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  coexistence,
  LEASED_OPERATIONS,
  leaseRefuses,
  TENANT_OPERATIONS,
  type Coexistence,
  type TenantOperation,
} from '../../../policies/tenant-operations.ts';

// running × starting → rule. The rows a reviewer should be able to check by eye.
const CASES: Array<[TenantOperation, TenantOperation, Coexistence]> = [
  ['consolidation', 'run_rollback', 'refused'],
  ['run_rollback', 'consolidation', 'refused'],
  ['consolidation', 'erasure', 'refused'],
  ['erasure', 'consolidation', 'refused'],
  ['consolidation', 'reindex', 'refused'],
  ['reindex', 'consolidation', 'refused'],
  ['consolidation', 'consolidation', 'refused'],
  ['run_rollback', 'run_rollback', 'refused'],
  ['reindex', 'erasure', 'refused'],
  ['erasure', 'erasure', 'waits'],
  ['consolidation', 'note_rollback', 'overlaps'],
  ['run_rollback', 'note_rollback', 'overlaps'],
  ['reindex', 'note_rollback', 'overlaps'],
  ['consolidation', 'staged_decision', 'overlaps'],
  ['erasure', 'note_rollback', 'fenced'],
  ['erasure', 'staged_decision', 'fenced'],
  ['erasure', 'record_index', 'fenced'],
  ['note_rollback', 'erasure', 'overlaps'],
  ['record_index', 'consolidation', 'overlaps'],
];

describe('which operations of one tenant may run at once', () => {
  it.each(CASES)('%s running, %s starting: %s', (running, starting, rule) => {
    expect(coexistence(running, starting)).toBe(rule);
  });

  it('every pair of leased operations excludes each other, so a lease with one holder is enough', () => {
    for (const held of LEASED_OPERATIONS)
      for (const wanted of LEASED_OPERATIONS) expect(leaseRefuses(held, wanted), `${held} × ${wanted}`).toBe(true);
  });

  it('an operation without the lease never keeps a leased one out', () => {
    const unleased = TENANT_OPERATIONS.filter((o) => !(LEASED_OPERATIONS as readonly string[]).includes(o));
    for (const running of unleased)
      for (const starting of TENANT_OPERATIONS) expect(coexistence(running, starting)).toBe('overlaps');
  });

  it('is the table docs/SECURITY.md shows', () => {
    const doc = readFileSync(new URL('../../../docs/SECURITY.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('**One operation per tenant.**'));
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .slice(0, TENANT_OPERATIONS.length)
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim().replaceAll('`', '')),
      );
    const header = section
      .split('\n')
      .find((l) => l.startsWith('| running'))
      ?.split('|')
      .slice(2, -1)
      .map((c) => c.trim().replaceAll('`', ''));
    expect(header).toEqual([...TENANT_OPERATIONS]);
    expect(rows.map((r) => r[0])).toEqual([...TENANT_OPERATIONS]);
    for (const [running, ...cells] of rows)
      cells.forEach((cell, i) =>
        expect(cell, `${running} × ${TENANT_OPERATIONS[i]}`).toBe(
          coexistence(running as TenantOperation, TENANT_OPERATIONS[i] as TenantOperation),
        ),
      );
  });
});
