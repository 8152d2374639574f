import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { formatIssues } from '../contracts/format-issues.ts';
import type { Grant } from './auth.ts';
import type { ApiErrorBody } from './contract.ts';

/** What every route of the app sees: the tenant and grant of its bearer token, and the request's deadline signal. */
export type ApiEnv = { Variables: { tenantId: string; grant: Grant; signal: AbortSignal } };

export type ErrorStatus = 400 | 401 | 403 | 404 | 413 | 429 | 500 | 503 | 504;

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

/** Every C0 control character and DEL: never part of an identifier. */
const ID_CONTROL = /[\u0000-\u001f\u007f]/;
/** Free text may hold tab, newline and carriage return, never NUL or other controls. */
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const IDENTIFIER_FIELDS = ['tenantId', 'taskId', 'noteId', 'sessionId', 'agentId', 'userId', 'noteIds', 'id'];
const TEXT_FIELDS = ['query', 'reason', 'comment'];

/**
 * 400 naming the field when an identifier holds a control character (or free text holds NUL
 * or another control besides tab and newlines): the database cannot store NUL, and a control
 * character in an id is a mistake or an attack, never data.
 */
export function assertNoControlCharacters(body: Record<string, unknown>): void {
  const refuse = (field: string, what: string) => {
    throw new ApiFailure(400, 'invalid_request', `${field}: control characters are not allowed in ${what}`);
  };
  for (const field of IDENTIFIER_FIELDS) {
    const value = body[field];
    const values = Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      if (typeof v === 'string' && ID_CONTROL.test(v))
        refuse(Array.isArray(value) ? `${field}[${i}]` : field, 'identifiers');
    });
  }
  for (const field of TEXT_FIELDS) {
    const value = body[field];
    if (typeof value === 'string' && TEXT_CONTROL.test(value)) refuse(field, 'text (tab and newlines only)');
  }
  if (Array.isArray(body.messages))
    body.messages.forEach((m: unknown, i) => {
      const content = m !== null && typeof m === 'object' ? (m as { content?: unknown }).content : undefined;
      if (typeof content === 'string' && TEXT_CONTROL.test(content))
        refuse(`messages[${i}].content`, 'text (tab and newlines only)');
    });
}
