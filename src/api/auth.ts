import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiToken } from '../config.ts';

export type AuthResult = { ok: true; tenantId: string } | { ok: false; reason: string };

/**
 * Bearer tokens per tenant, held as sha256 digests. A presented token is hashed and compared in
 * constant time against every digest, so neither timing nor an early exit tells which part of a
 * guess was right. Nothing here logs or returns a token.
 */
export function createTokenVerifier(tokens: readonly ApiToken[]): (authorization: string | undefined) => AuthResult {
  const digests = tokens.map((t) => ({ tenantId: t.tenantId, digest: Buffer.from(t.sha256, 'hex') }));
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '')
      return { ok: false, reason: 'missing bearer token (Authorization: Bearer <token>)' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) return { ok: false, reason: 'malformed Authorization header: expected "Bearer <token>"' };
    const presented = createHash('sha256').update(match[1]).digest();
    let tenantId: string | undefined;
    for (const d of digests) if (timingSafeEqual(presented, d.digest) && tenantId === undefined) tenantId = d.tenantId;
    return tenantId === undefined ? { ok: false, reason: 'unknown bearer token' } : { ok: true, tenantId };
  };
}
