import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The worker image holds only what the Dockerfile copies. The command must start from exactly
// that file set: nothing in the product may reach into tools/ or test/.
const REPO = path.resolve(import.meta.dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** The COPY instructions of ./Dockerfile as [sources, destination] (flags such as --chown dropped). */
function dockerCopies(): Array<{ sources: string[]; dest: string }> {
  return readFileSync(path.join(REPO, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => /^COPY\s/i.test(line.trim()))
    .map((line) => {
      const words = line
        .trim()
        .split(/\s+/)
        .slice(1)
        .filter((w) => !w.startsWith('--'));
      return { sources: words.slice(0, -1), dest: words.at(-1) ?? '.' };
    });
}

let image: string;

beforeAll(() => {
  image = mkdtempSync(path.join(tmpdir(), 'nocturne-image-'));
  for (const { sources, dest } of dockerCopies()) {
    for (const source of sources) {
      // Docker copies a folder's contents into dest, and files into dest/ when it names a folder.
      const into = dest.endsWith('/') ? path.join(image, dest, path.basename(source)) : path.join(image, dest);
      cpSync(path.join(REPO, source), into, { recursive: true });
    }
  }
  // `npm ci` in the image; here the repository's installed packages stand in for it.
  symlinkSync(path.join(REPO, 'node_modules'), path.join(image, 'node_modules'), 'dir');
});
afterAll(() => rmSync(image, { recursive: true, force: true }));

function nocturne(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/nocturne.mjs', ...args], {
    cwd: image,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the worker image file set', () => {
  it('is what the Dockerfile copies: the product, without tools/ or test/', () => {
    const copied = dockerCopies().flatMap((c) => c.sources);
    expect(copied).toEqual(expect.arrayContaining(['bin', 'src', 'workflows', 'activities', 'policies']));
    expect(copied).not.toContain('tools');
    expect(copied).not.toContain('test');
  });

  it('runs nocturne --help, listing the product commands and none of the tools', () => {
    const r = nocturne('--help');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const command of ['worker', 'run', 'archive', 'notes', 'recall', 'serve', 'rollback', 'erase'])
      expect(r.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    for (const tool of ['demo', 'eval', 'simulate', 'bench'])
      expect(r.stdout).not.toMatch(new RegExp(`^  ${tool}\\b`, 'm'));
  });

  it('prints the version of package.json with --version', () => {
    const r = nocturne('--version');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });

  it('describes the worker command', () => {
    const r = nocturne('worker', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: nocturne worker');
    expect(r.stdout).toContain('task queue');
  });
});
