import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRecords, toJsonl } from '../../helpers/records.ts';
import { tempStore } from './fixtures.ts';

// `nocturne archive put|scan` as a user meets them: a real process against a file:// archive.
describe('nocturne archive', { timeout: 90_000 }, () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let input: string;
  const records = generateRecords({ count: 300, seed: 77 });

  function nocturne(...args: string[]) {
    const r = spawnSync(process.execPath, ['bin/nocturne.mjs', 'archive', ...args], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NOCTURNE_ARCHIVE_URI: `file://${join(root, 'archive')}`, NOCTURNE_PRODUCER: 'cli-test' },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  beforeAll(async () => {
    ({ root, cleanup } = await tempStore());
    input = join(root, 'in.jsonl');
    const bad = [
      '{broken',
      JSON.stringify({ ...records[0], id: '01JQ0000000000000000000000', tenantId: 'someone-else' }),
    ];
    await writeFile(input, `${toJsonl(records.slice(0, 150))}${bad[0]}\n${toJsonl(records.slice(150))}${bad[1]}\n`);
  });
  afterAll(() => cleanup());

  it('put archives valid lines, lists rejected ones with line numbers, and exits 1', () => {
    const r = nocturne('put', '--tenant', 'acme', input, '--json');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ accepted: 300, lines: 302, alreadyPresent: 0 });
    expect(out.rejected.map((x: { line: number }) => x.line)).toEqual([151, 302]);
    expect(out.objects.every((o: { objectKey: string }) => o.objectKey.includes('/cli-test-'))).toBe(true);
  });

  it('put of the same file again writes nothing new', () => {
    const r = nocturne('put', '--tenant', 'acme', input, '--json');
    expect(JSON.parse(r.stdout)).toMatchObject({ written: 0, accepted: 300 });
  });

  it('put exits 2 with one line when the file is missing or the tenant is invalid', () => {
    const missing = nocturne('put', '--tenant', 'acme', join(root, 'nope.jsonl'));
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toEqual([expect.stringContaining('no such file')]);
    expect(nocturne('put', '--tenant', '../x', input).code).toBe(2);
  });

  it('scan reports counts as one JSON document, and verifies on request', () => {
    const r = nocturne('scan', '--tenant', 'acme', '--json', '--verify');
    expect(r.code).toBe(0);
    const scan = JSON.parse(r.stdout);
    expect(scan).toMatchObject({ records: 300, problems: [], verified: { records: 300, quarantined: 0 } });
    const human = nocturne('scan', '--tenant', 'acme');
    expect(human.stdout).toMatch(/300 records/);
    expect(human.stdout).toMatch(/user_correction/);
  });

  it('documents exit codes in --help', () => {
    expect(nocturne('put', '--help').stdout).toMatch(/1 +some lines were rejected/);
    expect(nocturne('scan', '--help').stdout).toMatch(/--verify/);
  });
});
