import { describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../../activities/deps.ts';
import { createTenantActivities } from '../../../activities/tenants.ts';
import { InvalidConflictReportError, parseConflictReport } from '../../../src/conflicts/report-conflict.ts';
import { validateCron } from '../../../src/schedule/cron.ts';

describe('validateCron', () => {
  it.each(['0 2 * * *', '*/15 * * * *', '30 3 * * 1-5', '0 0,12 1 1-12/2 0', '59 23 31 12 7'])('accepts %s', (cron) => {
    expect(validateCron(cron)).toBeUndefined();
  });

  it.each([
    ['0 2 * *', /expected 5 fields/],
    ['0 25 * * *', /hour: 25 is outside 0-23/],
    ['60 2 * * *', /minute: 60 is outside 0-59/],
    ['0 2 0 * *', /day of month: 0 is outside 1-31/],
    ['0 2 * 13 *', /month: 13/],
    ['0 2 * * MON', /day of week: cannot read "MON"/],
    ['*/0 2 * * *', /minute: a step of 0/],
    ['0 5-2 * * *', /hour: range 5-2 runs backwards/],
    ['@daily', /expected 5 fields/],
  ])('rejects %s naming the field', (cron, reason) => {
    expect(validateCron(cron)).toMatch(reason);
  });
});

describe('parseConflictReport', () => {
  it('accepts a tenant, note ids and an optional reason', () => {
    expect(parseConflictReport({ tenantId: 'acme', noteIds: ['N1'], reason: 'contradicted' })).toEqual({
      tenantId: 'acme',
      report: { noteIds: ['N1'], reason: 'contradicted' },
    });
  });

  it.each([
    [{ tenantId: 'bad tenant', noteIds: ['N1'] }, /^tenantId: /],
    [{ tenantId: 'acme', noteIds: [] }, /^noteIds: /],
    [{ tenantId: 'acme', noteIds: [''] }, /^noteIds\.0: /],
    [{ tenantId: 'acme', noteIds: Array.from({ length: 1001 }, (_, i) => `N${i}`) }, /^noteIds: /],
  ])('refuses %o before anything is sent, naming the field', (input, reason) => {
    expect(() => parseConflictReport(input)).toThrow(InvalidConflictReportError);
    expect(() => parseConflictReport(input)).toThrow(reason);
  });
});

describe('listActiveTenants', () => {
  const keys = [
    'raw/tenant=acme/date=2026-11-20/p-1.jsonl.gz',
    'raw/tenant=acme/date=2026-11-29/p-2.jsonl.gz',
    'raw/tenant=beta/date=2026-11-01/p-1.jsonl.gz',
    'raw/tenant=gamma/date=2026-11-30/p-1.manifest.json',
    'raw/tenant=delta/date=2026-11-30/p-1.jsonl.gz',
    'raw/not-a-tenant/x',
    'quarantine/tenant=zeta/date=2026-11-30/x',
  ];
  const archive = {
    list: async function* (prefix: string) {
      for (const key of keys) if (key.startsWith(prefix)) yield { key, size: 1 };
    },
  };
  const { listActiveTenants } = createTenantActivities({ archive } as unknown as ActivityDeps);

  it('lists distinct tenants with partitions on or after `since`, sorted, in pages after a cursor', async () => {
    expect(await listActiveTenants({ limit: 10 })).toEqual({
      tenants: ['acme', 'beta', 'delta', 'gamma'],
      more: false,
    });
    expect(await listActiveTenants({ since: '2026-11-25', limit: 10 })).toEqual({
      tenants: ['acme', 'delta', 'gamma'],
      more: false,
    });
    expect(await listActiveTenants({ since: '2026-11-25', limit: 2 })).toEqual({
      tenants: ['acme', 'delta'],
      more: true,
    });
    expect(await listActiveTenants({ since: '2026-11-25', after: 'delta', limit: 2 })).toEqual({
      tenants: ['gamma'],
      more: false,
    });
  });
});
