import { Hono, type MiddlewareHandler } from 'hono';
import type { ApiToken } from '../config.ts';
import type { ArchiveStore } from '../archive/store.ts';
import type { ConflictReporter } from '../conflicts/lazy-reporter.ts';
import type { Db } from '../db/index.ts';
import type { Embedder } from '../embeddings/embedder.ts';
import type { RecallOptions } from '../recall/recall.ts';
import { createTokenVerifier } from './auth.ts';
import type { ApiLimits } from '../config.ts';
import { renderDocsPage } from './docs-page.ts';
import { ApiFailure, fail, type ApiEnv } from './http.ts';
import { createLimiter } from './limits.ts';
import { handleMcpRequest } from './mcp.ts';
import { openApiDocument } from './openapi.ts';
import { mountV1Routes } from './routes/v1.ts';
import { createApiService } from './service.ts';

export interface ApiAppDeps {
  db: Db;
  embedder: Embedder;
  tokens: readonly ApiToken[];
  /** Where `POST /v1/records` and `/v1/feedback` write. Absent → they answer 503. */
  archive?: ArchiveStore;
  /** How `POST /v1/conflicts` reaches Temporal. Absent → it answers 503. */
  conflicts?: ConflictReporter;
  recallOptions?: RecallOptions;
  clock?: () => Date;
  /** The operators' note inspector (src/inspector), mounted at /inspector when given. */
  inspector?: Hono;
  /** Per-token rate, concurrency and deadline. @default DEFAULT_API_LIMITS */
  limits?: ApiLimits;
  /** Where unexpected server errors are reported (never request bodies or tokens). @default stderr */
  log?: (line: string) => void;
}

/**
 * The agents' HTTP API (routes in `routes/v1.ts`, described at `/openapi.json` and `/docs`) and
 * its MCP endpoint (`/mcp`, the same operations as tools), behind one bearer token per tenant.
 *
 * 401: no or unknown token. 403: a valid token of another tenant. 400: bad JSON or a body that
 * fails the schema, with one line naming each bad field. The token is checked before the body is
 * read, so an unauthenticated caller learns nothing about the schema or the data. Then each token
 * has its own rate limit and concurrency cap (429 with retry-after) and each request a deadline
 * (504): docs/SECURITY.md, "API hardening".
 */
export function createApiApp(deps: ApiAppDeps): Hono<ApiEnv> {
  const verify = createTokenVerifier(deps.tokens);
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const service = createApiService(deps);
  const app = new Hono<ApiEnv>();
  app.get('/healthz', (c) => c.json({ ok: true, embedder: deps.embedder.name }));
  app.get('/openapi.json', (c) => c.json(openApiDocument(new URL(c.req.url).origin)));
  app.get('/docs', (c) => c.html(renderDocsPage()));
  const authenticate: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const auth = verify(c.req.header('authorization'));
    if (!auth.ok) return fail(401, 'unauthorized', auth.reason);
    const { ok: _ok, ...grant } = auth;
    c.set('tenantId', grant.tenantId);
    c.set('grant', grant);
    await next();
  };
  const limiter = createLimiter(deps.limits);
  app.use('/v1/*', authenticate, limiter);
  mountV1Routes(app, service);
  // Stateless: no session to resume and no server-initiated stream, which the protocol answers with 405.
  app.on(['GET', 'DELETE'], '/mcp', () => new Response(null, { status: 405, headers: { allow: 'POST' } }));
  app.post('/mcp', authenticate, limiter, async (c) =>
    handleMcpRequest(c.req.raw, { service, caller: c.get('grant'), log, signal: c.get('signal') }),
  );
  if (deps.inspector) app.route('/inspector', deps.inspector);
  app.notFound(() => fail(404, 'not_found', 'no such route; see /docs'));
  app.onError((error, c) => {
    if (error instanceof ApiFailure) return fail(error.status, error.code, error.reason);
    log(
      `API: ${c.req.method} ${c.req.path} for tenant ${c.get('tenantId') ?? '-'} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return fail(500, 'internal', 'the request failed; see the server log');
  });
  return app;
}
