import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The command line as a user meets it: a real process, real exit codes.
function nocturne(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/nocturne.mjs', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('nocturne command', () => {
  it('lists its commands in --help and exits 0', () => {
    const r = nocturne('--help');
    expect(r.code).toBe(0);
    for (const cmd of ['demo', 'stack', 'archive', 'notes', 'bench']) expect(r.stdout).toContain(cmd);
  });

  it('ends quietly when its reader closes the pipe early (`| head`)', () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" bin/nocturne.mjs index vectors --help | head -c 1`], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('U');
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled/);
  });

  it('exits 2 with a reason on an unknown command', () => {
    const r = nocturne('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command/);
  });

  it('exits 2 naming the variable when the configuration is bad', () => {
    const r = spawnSync(process.execPath, ['bin/nocturne.mjs', 'archive', 'scan', '--tenant', 'acme'], {
      encoding: 'utf8',
      env: { ...process.env, NOCTURNE_ARCHIVE_URI: 'ftp://nowhere' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('NOCTURNE_ARCHIVE_URI');
  });
});
