import { createHash, timingSafeEqual } from 'node:crypto';
import { refuseDuplicateTokens, type ApiToken } from '../config.ts';

/** What a bearer token grants: its tenant, whether it may audit, the user it is bound to, and a key for its limits. */
export interface Grant {
  tenantId: string;
  audit: boolean;
  userId?: string;
  /** The token's digest: the key of its rate and concurrency limits (never logged). */
  key: string;
}

export type AuthResult = ({ ok: true } & Grant) | { ok: false; reason: string };

/**
 * Bearer tokens per tenant, held as sha256 digests. A presented token is hashed and compared in
 * constant time against every digest, so neither timing nor an early exit tells which part of a
 * guess was right. A digest given twice is refused here too, so one token never has two grants.
 * Nothing here logs or returns a token.
 */
export function createTokenVerifier(tokens: readonly ApiToken[]): (authorization: string | undefined) => AuthResult {
  refuseDuplicateTokens([{ variable: 'API tokens', tokens }]);
  const digests = tokens.map((t) => ({ token: t, digest: Buffer.from(t.sha256, 'hex') }));
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '')
      return { ok: false, reason: 'missing bearer token (Authorization: Bearer <token>)' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) return { ok: false, reason: 'malformed Authorization header: expected "Bearer <token>"' };
    const presented = createHash('sha256').update(match[1]).digest();
    let found: ApiToken | undefined;
    for (const d of digests) if (timingSafeEqual(presented, d.digest)) found = d.token;
    if (found === undefined) return { ok: false, reason: 'unknown bearer token' };
    return {
      ok: true,
      tenantId: found.tenantId,
      audit: found.role === 'audit',
      ...(found.userId ? { userId: found.userId } : {}),
      key: found.sha256,
    };
  };
}
