import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { formatIssues } from '../contracts/format-issues.ts';
import type { ApiErrorBody } from './contract.ts';

/** What every route of the app sees: the tenant its bearer token grants. */
export type ApiEnv = { Variables: { tenantId: string } };

export type ErrorStatus = 400 | 401 | 403 | 404 | 413 | 500 | 503;

/** A request the service refuses, with the status and one-line reason the caller gets. */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function fail(status: ErrorStatus, code: string, reason: string): Response {
  return Response.json({ error: { status, code, reason } } satisfies ApiErrorBody, {
    status,
    headers: status === 401 ? { 'www-authenticate': 'Bearer realm="nocturne"' } : {},
  });
}

/** Request bodies are small JSON documents; anything larger is refused before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

export function limitBody(maxSize: number): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => fail(413, 'body_too_large', `request body is larger than ${maxSize} bytes`),
  });
}

/** The body as a JSON object, or the 400 that says why not. */
export async function readObject(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ApiFailure(400, 'invalid_json', 'request body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ApiFailure(400, 'invalid_request', '(body): expected a JSON object');
  return body as Record<string, unknown>;
}

/**
 * Parses a body whose `tenantId` defaults to the token's tenant: 400 naming each bad field, 403
 * when it names another tenant.
 */
export function parseForTenant<S extends z.ZodType<{ tenantId?: string | undefined }>>(
  schema: S,
  body: Record<string, unknown>,
  tenantId: string,
): z.output<S> & { tenantId: string } {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new ApiFailure(400, 'invalid_request', formatIssues(parsed.error.issues, { root: '(body)' }));
  assertTenant(parsed.data.tenantId ?? tenantId, tenantId);
  return { ...parsed.data, tenantId };
}

export function assertTenant(requested: string, granted: string): void {
  if (requested !== granted)
    throw new ApiFailure(403, 'forbidden', 'this token does not grant access to the requested tenant');
}
