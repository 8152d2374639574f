import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiToken } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import { RecallRequest } from '../recall/contract.ts';
import { describeRequestIssues, InvalidRecallRequestError, recall, type RecallOptions } from '../recall/recall.ts';
import { createTokenVerifier } from './auth.ts';

export interface RecallAppDeps {
  db: Db;
  embedder: Embedder;
  tokens: readonly ApiToken[];
  recallOptions?: RecallOptions;
  /** The operators' note inspector (src/inspector), mounted at /inspector when given. */
  inspector?: Hono;
  /** Where unexpected server errors are reported (never request bodies or tokens). @default stderr */
  log?: (line: string) => void;
}

/** Request bodies are small JSON documents; anything larger is refused before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ApiError {
  error: { status: number; code: string; reason: string };
}

/**
 * The recall HTTP API for online agents.
 *
 *   POST /v1/recall   Authorization: Bearer <tenant token>   body: RecallRequest (tenantId optional:
 *                     defaults to the token's tenant; `include: ["notes"]` leaves raw records out)
 *                     answer: RecallResult — `notes` with their evidence, `records` no returned
 *                     note cites, and `ranking`, the fused order to read them in
 *   GET  /healthz
 *
 * 401: no or unknown token. 403: a valid token of another tenant. 400: bad JSON or a body that
 * fails the schema, with one line naming each bad field. The token is checked before the body is
 * read, so an unauthenticated caller learns nothing about the schema or the data.
 */
export function createRecallApp(deps: RecallAppDeps): Hono {
  const verify = createTokenVerifier(deps.tokens);
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const fail = (status: 400 | 401 | 403 | 404 | 413 | 500, code: string, reason: string): Response =>
    Response.json({ error: { status, code, reason } } satisfies ApiError, {
      status,
      headers: status === 401 ? { 'www-authenticate': 'Bearer realm="nocturne"' } : {},
    });

  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true, embedder: deps.embedder.name }));
  app.post(
    '/v1/recall',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => fail(413, 'body_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`),
    }),
    async (c) => {
      const auth = verify(c.req.header('authorization'));
      if (!auth.ok) return fail(401, 'unauthorized', auth.reason);
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return fail(400, 'invalid_json', 'request body is not valid JSON');
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return fail(400, 'invalid_request', '(body): expected a JSON object');
      const withTenantId = { tenantId: auth.tenantId, ...(body as Record<string, unknown>) };
      const parsed = RecallRequest.safeParse(withTenantId);
      if (!parsed.success) return fail(400, 'invalid_request', describeRequestIssues(parsed.error.issues));
      if (parsed.data.tenantId !== auth.tenantId)
        return fail(403, 'forbidden', 'this token does not grant access to the requested tenant');
      try {
        return c.json(await recall(deps.db, deps.embedder, parsed.data, deps.recallOptions));
      } catch (error) {
        if (error instanceof InvalidRecallRequestError) return fail(400, 'invalid_request', error.message);
        log(
          `recall API: POST /v1/recall for tenant ${auth.tenantId} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        return fail(500, 'internal', 'recall failed; see the server log');
      }
    },
  );
  if (deps.inspector) app.route('/inspector', deps.inspector);
  app.notFound(() => fail(404, 'not_found', 'no such route; POST /v1/recall'));
  app.onError((error) => {
    log(`recall API: unhandled ${error instanceof Error ? error.message : String(error)}`);
    return fail(500, 'internal', 'internal error');
  });
  return app;
}
