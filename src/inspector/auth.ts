import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OperatorToken } from '../config.ts';

/** The session cookie: `<operator>.<expires ms>.<hmac>`, HttpOnly, SameSite=Strict, path /inspector. */
export const SESSION_COOKIE = 'nocturne_operator';
/** A login lasts a working day. @default 8 h */
export const SESSION_MS = 8 * 3600_000;

export interface OperatorAuth {
  /** The operator a token belongs to, or undefined (a tenant's read token is not an operator token). */
  operatorOfToken(token: string): string | undefined;
  /** A session cookie value for an operator, valid for SESSION_MS. */
  issueSession(operator: string): string;
  /** The operator of a valid, unexpired session whose operator is still configured. */
  operatorOfSession(cookie: string): string | undefined;
}

/**
 * Operator tokens are held as sha256 digests and compared in constant time against every one,
 * like the tenants' tokens, but they form a role of their own: only these tokens open the
 * inspector, and the operator name they map to is what the audit records. Sessions are signed
 * with a key made at start-up, so a restart logs every operator out and nothing is stored.
 */
export function createOperatorAuth(
  operators: readonly OperatorToken[],
  options: { key?: Buffer; now?: () => number } = {},
): OperatorAuth {
  const digests = operators.map((o) => ({ operator: o.operator, digest: Buffer.from(o.sha256, 'hex') }));
  const names = new Set(operators.map((o) => o.operator));
  const key = options.key ?? randomBytes(32);
  const now = options.now ?? Date.now;
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    operatorOfToken(token) {
      const presented = createHash('sha256').update(token).digest();
      let found: string | undefined;
      for (const d of digests) if (timingSafeEqual(presented, d.digest) && found === undefined) found = d.operator;
      return found;
    },
    issueSession(operator) {
      const payload = `${operator}.${now() + SESSION_MS}`;
      return `${payload}.${sign(payload)}`;
    },
    operatorOfSession(cookie) {
      const m = /^(.+)\.(\d+)\.([A-Za-z0-9_-]+)$/.exec(cookie);
      if (!m) return undefined;
      const [, operator = '', expires = '0', mac = ''] = m;
      const expected = Buffer.from(sign(`${operator}.${expires}`));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      if (Number(expires) <= now() || !names.has(operator)) return undefined;
      return operator;
    },
  };
}
