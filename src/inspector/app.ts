import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { ArchiveStore } from '../archive/index.ts';
import type { OperatorToken } from '../config.ts';
import { TenantId } from '../contracts/ids.ts';
import { rollbackNoteId } from '../contracts/workflow-ids.ts';
import type { Db } from '../db/index.ts';
import { createOperatorAuth, SESSION_COOKIE, SESSION_MS, type OperatorAuth } from './auth.ts';
import { openEvidence } from './evidence.ts';
import { evidencePage } from './evidence-view.ts';
import { html, type Html } from './html.ts';
import { BASE, loginPage, noteUrl, page } from './layout.ts';
import { loadNotePage } from './note-data.ts';
import { notePage } from './note-view.ts';
import { retireSupport, rollbackInput, type RetireSupport, type RollbackRequest } from './rollback-input.ts';
import { runSearch } from './search.ts';
import type { RollbackLauncher } from './workflows.ts';

export interface InspectorDeps {
  db: Db;
  archive: ArchiveStore;
  operators: readonly OperatorToken[];
  rollbacks: RollbackLauncher;
  /** Tenants offered in the search form. */
  tenants?: readonly string[];
  /** How long a button waits for its workflow before showing the note. @default 30 s */
  waitMs?: number;
  auth?: OperatorAuth;
  retire?: RetireSupport;
  log?: (line: string) => void;
}

type Env = { Variables: { operator: string } };

// Forms only, no script: the policy allows inline styles and posting to this server, nothing else.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const respond = (c: Context, body: Html, status: 200 | 400 | 401 | 403 | 404 | 409 | 500 = 200): Response =>
  c.html(body.toString(), status, SECURITY_HEADERS);

/**
 * The note inspector, mounted at /inspector on the API server: server-rendered pages for
 * operators. Only an operator token opens it (bearer, or a signed session cookie after the login
 * form); a tenant's read token gets 401. Pages read the note store and the archive; the only
 * change they make is starting rollbackNoteWorkflow.
 */
export function createInspectorApp(deps: InspectorDeps): Hono {
  const auth = deps.auth ?? createOperatorAuth(deps.operators);
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const retire = deps.retire ?? retireSupport();
  const app = new Hono<Env>();
  const small = bodyLimit({ maxSize: 16 * 1024, onError: (c) => c.text('request body too large', 413) });

  app.get('/login', (c) => respond(c, loginPage()));
  app.post('/login', small, async (c) => {
    const token = String((await c.req.parseBody())['token'] ?? '');
    const operator = token === '' ? undefined : auth.operatorOfToken(token);
    if (!operator) return respond(c, loginPage('That is not an operator token.'), 401);
    setCookie(c, SESSION_COOKIE, auth.issueSession(operator), {
      path: BASE,
      httpOnly: true,
      sameSite: 'Strict',
      maxAge: SESSION_MS / 1000,
    });
    return c.redirect(BASE, 303);
  });

  app.use('*', operatorOnly(auth));
  app.post('/logout', (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: BASE });
    return c.redirect(`${BASE}/login`, 303);
  });

  app.get('/', async (c) => respond(c, await runSearch(deps.db, c.get('operator'), c.req.query(), deps.tenants ?? [])));

  app.get('/tenants/:tenant/notes/:note', async (c) => {
    const { tenant, note } = c.req.param();
    if (!TenantId.safeParse(tenant).success) return notFound(c);
    const data = await loadNotePage(deps.db, tenant, note);
    if (!data) return notFound(c);
    const workflowId = c.req.query('workflow');
    // Only this note's rollbacks: the page is not a window onto any workflow by id.
    const outcome =
      workflowId?.startsWith(rollbackNoteId(tenant, note, '')) === true
        ? await deps.rollbacks.outcome(workflowId, 0)
        : undefined;
    return respond(c, notePage({ operator: c.get('operator'), data, retire, ...(outcome ? { outcome } : {}) }));
  });

  app.get('/tenants/:tenant/notes/:note/evidence', async (c) => {
    const { tenant, note } = c.req.param();
    if (!TenantId.safeParse(tenant).success) return notFound(c);
    const data = await loadNotePage(deps.db, tenant, note);
    if (!data) return notFound(c);
    return respond(
      c,
      evidencePage(c.get('operator'), data.current, await openEvidence(deps.archive, tenant, data.versions)),
    );
  });

  const button = (request: (form: Record<string, unknown>) => RollbackRequest) => async (c: Context<Env>) => {
    const { tenant, note } = c.req.param() as { tenant: string; note: string };
    const form = await c.req.parseBody();
    if (!TenantId.safeParse(tenant).success || !(await loadNotePage(deps.db, tenant, note))) return notFound(c);
    const asked = request(form);
    if (asked.kind === 'retire' && !retire.enabled) return problem(c, 409, retire.why);
    const reason = String(form['reason'] ?? '').trim();
    const built = rollbackInput({ tenantId: tenant, noteId: note }, asked, reason, c.get('operator'));
    if (!built.ok) return problem(c, 400, built.error);
    const workflowId = await deps.rollbacks.start(tenant, note, built.input);
    await deps.rollbacks.outcome(workflowId, deps.waitMs ?? 30_000);
    return c.redirect(`${noteUrl(tenant, note)}?workflow=${encodeURIComponent(workflowId)}`, 303);
  };
  app.post(
    '/tenants/:tenant/notes/:note/rollback',
    small,
    button((f) => ({ kind: 'version', toVersion: Number(f['toVersion']) })),
  );
  app.post(
    '/tenants/:tenant/notes/:note/retire',
    small,
    button(() => ({ kind: 'retire' })),
  );

  app.onError((error, c) => {
    log(`inspector: ${c.req.method} ${c.req.path} failed: ${error instanceof Error ? error.message : String(error)}`);
    return problem(c, 500, 'The inspector failed; see the server log.');
  });
  // Mounted inside a plain app, so the API server needs no knowledge of the inspector's context type.
  return new Hono().route('/', app);
}

function problem(c: Context, status: 400 | 403 | 404 | 409 | 500, message: string): Response {
  return respond(c, page('Error', html`<section><p class="error" id="problem">${message}</p></section>`), status);
}

const notFound = (c: Context) => problem(c, 404, 'No such note for that tenant.');

/**
 * Lets operators through and sets `operator`; anyone else gets 401 and the login form. A form
 * posted from another origin is refused (the cookie is SameSite=Strict as well).
 */
function operatorOnly(auth: OperatorAuth) {
  return createMiddleware<Env>(async (c, next) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    const cookie = getCookie(c, SESSION_COOKIE);
    const operator = bearer ? auth.operatorOfToken(bearer) : cookie ? auth.operatorOfSession(cookie) : undefined;
    if (!operator) {
      const message = bearer ? 'That bearer token is not an operator token.' : undefined;
      return c.html(loginPage(message).toString(), 401, {
        ...SECURITY_HEADERS,
        'www-authenticate': 'Bearer realm="nocturne-inspector"',
      });
    }
    const origin = c.req.header('origin');
    if (c.req.method === 'POST' && !bearer && origin && origin !== new URL(c.req.url).origin)
      return problem(c, 403, 'Cross-origin form posts are refused.');
    c.set('operator', operator);
    await next();
  });
}
