import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../../activities/deps.ts';
import { createTenantActivities } from '../../../activities/tenants.ts';
import { FileArchiveStore } from '../../../src/archive/file-store.ts';
import { InvalidConflictReportError, parseConflictReport } from '../../../src/conflicts/report-conflict.ts';
import { nextFireTimes, validateCron, validateTimeZone } from '../../../src/schedule/cron.ts';

describe('validateCron', () => {
  it.each([
    '0 2 * * *',
    '*/15 * * * *',
    '30 3 * * 1-5',
    '0 0,12 1 1-12/2 0',
    '59 23 31 12 7',
    '0 2 * * MON-FRI',
    '0 6 1 JAN,JUL *',
    '@daily',
    '@weekly',
  ])('accepts %s, as Temporal does', (cron) => {
    expect(validateCron(cron)).toBeUndefined();
  });

  it.each([
    ['0 2 * *', /expected 5 fields/],
    ['0 2 * * * *', /expected 5 fields/],
    ['0 25 * * *', /25 expected range 0-23/],
    ['60 2 * * *', /60 expected range 0-59/],
    ['0 2 0 * *', /0 expected range 1-31/],
    ['0 2 * 13 *', /13 expected range 1-12/],
    ['0 2 * * FUNDAY', /FUNDAY|fun/i],
    ['@nightly', /unknown shorthand @nightly/],
  ])('rejects %s naming the problem', (cron, reason) => {
    expect(validateCron(cron)).toMatch(reason);
  });
});

describe('validateTimeZone and nextFireTimes', () => {
  it('accepts IANA zones and refuses others', () => {
    expect(validateTimeZone('Europe/Berlin')).toBeUndefined();
    expect(validateTimeZone('UTC')).toBeUndefined();
    expect(validateTimeZone('Mars/Olympus')).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it('computes fire times in the schedule time zone: weekdays at 02:00 Berlin are 01:00 UTC in winter', () => {
    const times = nextFireTimes('0 2 * * MON-FRI', 'Europe/Berlin', 3, new Date('2026-12-04T12:00:00Z'));
    // Friday 4 December after noon: the next weekdays are Monday 7, Tuesday 8, Wednesday 9.
    expect(times.map((t) => t.toISOString())).toEqual([
      '2026-12-07T01:00:00.000Z',
      '2026-12-08T01:00:00.000Z',
      '2026-12-09T01:00:00.000Z',
    ]);
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
  let archive: FileArchiveStore;
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'nocturne-tenants-'));
    archive = new FileArchiveStore(root);
    for (const key of keys) await archive.putIfAbsent(key, Buffer.from('x'), 'text/plain');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));
  const listActiveTenants = (input: Parameters<ReturnType<typeof createTenantActivities>['listActiveTenants']>[0]) =>
    createTenantActivities({ archive } as unknown as ActivityDeps).listActiveTenants(input);

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
