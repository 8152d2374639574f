import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `nocturne` as a user runs it on a fresh machine: a real process on the embedded default (a
 * PGlite store and a file archive under its own data dir, the lexical embedder), whatever
 * stack the test run itself has in its environment.
 */
export function embeddedCli(label: string): {
  dir: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  nocturne: (...args: string[]) => CliResult;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), `nocturne-${label}-`));
  const {
    DATABASE_URL: _db,
    NOCTURNE_MIGRATION_DATABASE_URL: _owner,
    NOCTURNE_ARCHIVE_URI: _archive,
    ...inherited
  } = process.env;
  const env = {
    ...inherited,
    NOCTURNE_DATA_DIR: join(dir, 'var'),
    NOCTURNE_EMBEDDING_PROVIDER: 'lexical',
    NOCTURNE_EMBEDDING_DIM: '64',
  };
  const nocturne = (...args: string[]): CliResult => {
    const r = spawnSync(process.execPath, ['bin/nocturne.mjs', ...args], { encoding: 'utf8', timeout: 120_000, env });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    dir,
    dataDir: join(dir, 'var'),
    env,
    nocturne,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
