import { describe, expect, it } from 'vitest';
import {
  conflictMonitorId,
  consolidationId,
  eraseSubjectId,
  rollbackNoteId,
  rollbackRunId,
  tenantOfRunId,
  utcDay,
} from '../../../src/contracts/workflow-ids.ts';

describe('workflow ids', () => {
  it('builds the business ids every starter shares', () => {
    expect(consolidationId('acme', utcDay(Date.parse('2026-11-30T23:59:59.999Z')))).toBe('consolidate/acme/2026-11-30');
    expect(consolidationId('acme', utcDay(Date.parse('2026-12-01T00:00:00Z')))).toBe('consolidate/acme/2026-12-01');
    expect(conflictMonitorId('acme')).toBe('conflicts/acme');
    expect(rollbackNoteId('acme', 'N1', 'x')).toBe('rollback-note/acme/N1/x');
    expect(rollbackRunId('acme', 'x')).toBe('rollback-run/acme/x');
    expect(eraseSubjectId('acme', '0123456789abcdef0123456789abcdef')).toBe(
      'erase/acme/0123456789abcdef0123456789abcdef',
    );
  });

  it.each([
    ['consolidate/acme/2026-11-30/0193-run', 'acme'],
    ['consolidate/acme.eu/manual-01J/0193-run', 'acme.eu'],
    ['consolidate/acme', undefined],
    ['consolidate/bad tenant!/2026-11-30/x', undefined],
    ['rollback-run/acme/x', undefined],
    ['r-1', undefined],
  ])('reads the tenant of run id %s as %s', (runId, tenant) => {
    expect(tenantOfRunId(runId)).toBe(tenant);
  });

  it('reads back the tenant of every consolidation it names', () => {
    expect(tenantOfRunId(`${consolidationId('globex', '2026-11-30')}/run-1`)).toBe('globex');
  });
});
