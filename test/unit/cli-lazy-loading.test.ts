import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `nocturne --help` and `--version` only name the commands: the clients, drivers and tools
// that the actions use are imported when an action runs.
const PRELOAD = fileURLToPath(new URL('../helpers/module-log/preload.mjs', import.meta.url));
const HEAVY: Array<[string, RegExp]> = [
  ['the Temporal worker', /\/node_modules\/@temporalio\/worker\//],
  ['the Temporal client', /\/node_modules\/@temporalio\/client\//],
  ['the AWS SDK', /\/node_modules\/@aws-sdk\//],
  ['PGlite', /\/node_modules\/@electric-sql\/pglite\//],
  ['pg', /\/node_modules\/pg\//],
  ['llamaindex', /\/node_modules\/(llamaindex|@llamaindex)\//],
  ['evaluation, benchmark or demo code', /\/tools\/(eval|bench|demo)\//],
];

const dir = mkdtempSync(path.join(tmpdir(), 'nocturne-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** Runs the command with the module log preloaded; returns its exit code and the URLs it loaded. */
function loadedBy(args: string[], env: Record<string, string> = {}) {
  const log = path.join(dir, `modules-${++runs}.txt`);
  const r = spawnSync(process.execPath, ['--import', PRELOAD, 'bin/nocturne.mjs', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env, NOCTURNE_MODULE_LOG: log },
  });
  return { code: r.status, stdout: r.stdout, modules: readFileSync(log, 'utf8').trim().split('\n') };
}

const heavyIn = (modules: string[]): string[] =>
  HEAVY.filter(([, pattern]) => modules.some((url) => pattern.test(url))).map(([name]) => name);

describe('what the nocturne command loads', () => {
  it.each(['--help', '--version', 'worker --help'])('nocturne %s loads no client, driver or tool code', (line) => {
    const r = loadedBy(line.split(' '));
    expect(r.code).toBe(0);
    // The log saw the command's own TypeScript modules, so an absent module was not loaded.
    expect(r.modules.some((url) => url.endsWith('/src/cli/commands/worker.ts'))).toBe(true);
    expect(heavyIn(r.modules)).toEqual([]);
  });

  it('sees the worker when an action imports it (the log catches what --help must not load)', () => {
    // The worker action imports src/worker.ts, then fails on the configuration (exit 2).
    const r = loadedBy(['worker'], { NOCTURNE_ARCHIVE_URI: 'ftp://nowhere' });
    expect(r.code).toBe(2);
    expect(heavyIn(r.modules)).toContain('the Temporal worker');
  });
});
