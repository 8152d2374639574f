import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { VAR } from './paths.ts';

const KEY_FILE = path.join(VAR, 'audit-key');

/**
 * The local stack's audit key (NOCTURNE_AUDIT_KEY): made once per checkout, kept in the
 * git-ignored `var/audit-key` (mode 600), outside the database, so a developer's chain is keyed
 * like a deployment's. Two processes asking at once get the same key (create-exclusive, then read).
 */
export function stackAuditKey(): string {
  try {
    return readFileSync(KEY_FILE, 'utf8').trim();
  } catch {
    mkdirSync(VAR, { recursive: true });
    try {
      writeFileSync(KEY_FILE, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return readFileSync(KEY_FILE, 'utf8').trim();
  }
}
