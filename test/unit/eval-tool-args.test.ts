import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** An evaluation tool run as the docs say: `node --import tsx tools/eval/<tool>.ts …`. */
function tool(name: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `tools/eval/${name}.ts`, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the evaluation tools read their command line', () => {
  it.each(['fusion-offline', 'updates-offline', 'recall-profile', 'attribution-offline', 'turn-before-cost'])(
    '%s prints its usage on --help and names a bad option without a stack trace',
    (name) => {
      const help = tool(name, '--help');
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: node --import tsx tools/eval/${name}\\.ts`));
      const bad = tool(name, '--bogus');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/^Unknown option '--bogus'/);
      expect(bad.stderr).toContain('Usage:');
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('a tool that takes no argument says so', () => {
    const r = tool('fusion-offline', 'stray');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Unexpected argument 'stray'/);
  });
});
