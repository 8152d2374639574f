import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { ArchiveStore } from '../archive/index.ts';
import type { OperatorToken } from '../config.ts';
import { TenantId } from '../contracts/ids.ts';
import { rollbackNoteId } from '../contracts/workflow-ids.ts';
import { getNote, getNoteHistory, type Db } from '../db/index.ts';
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
  loginRoutes(app, auth);
  app.use('*', operatorOnly(auth));
  pageRoutes(app, deps, retire);
  buttonRoutes(app, deps, retire);
  app.onError((error, c) => {
    log(`inspector: ${c.req.method} ${c.req.path} failed: ${error instanceof Error ? error.message : String(error)}`);
    return problem(c, 500, 'The inspector failed; see the server log.');
  });
  // Mounted inside a plain app, so the API server needs no knowledge of the inspector's context type.
  return new Hono().route('/', app);
}

const smallBody = bodyLimit({ maxSize: 16 * 1024, onError: (c) => c.text('request body too large', 413) });

function loginRoutes(app: Hono<Env>, auth: OperatorAuth): void {
  app.get('/login', (c) => respond(c, loginPage()));
  app.post('/login', smallBody, async (c) => {
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
  app.post('/logout', (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: BASE });
    return c.redirect(`${BASE}/login`, 303);
  });
}

/** The tenant and note of a note route, when the tenant id is valid. */
function noteParams(c: Context<Env>): { tenant: string; note: string } | undefined {
  const { tenant = '', note = '' } = c.req.param() as Record<string, string>;
  return TenantId.safeParse(tenant).success ? { tenant, note } : undefined;
}

function pageRoutes(app: Hono<Env>, deps: InspectorDeps, retire: RetireSupport): void {
  app.get('/', async (c) => respond(c, await runSearch(deps.db, c.get('operator'), c.req.query(), deps.tenants ?? [])));
  app.get('/tenants/:tenant/notes/:note', async (c) => {
    const p = noteParams(c);
    const data = p && (await loadNotePage(deps.db, p.tenant, p.note));
    if (!p || !data) return notFound(c);
    const workflowId = c.req.query('workflow');
    // Only this note's rollbacks: the page is not a window onto any workflow by id.
    const outcome =
      workflowId?.startsWith(rollbackNoteId(p.tenant, p.note, '')) === true
        ? await deps.rollbacks.outcome(workflowId, 0)
        : undefined;
    return respond(c, notePage({ operator: c.get('operator'), data, retire, ...(outcome ? { outcome } : {}) }));
  });
  app.get('/tenants/:tenant/notes/:note/evidence', async (c) => {
    const p = noteParams(c);
    const versions = p ? (await getNoteHistory(deps.db, { tenantId: p.tenant, noteId: p.note })).versions : [];
    const current = versions.at(-1);
    if (!p || !current) return notFound(c);
    const opened = await openEvidence(deps.archive, p.tenant, versions);
    return respond(c, evidencePage(c.get('operator'), current, opened));
  });
}

/** A version number from a form: a positive integer, or NaN for the schema to refuse. */
const versionField = (value: unknown): number =>
  typeof value === 'string' && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : Number.NaN;

/**
 * The buttons: each builds the workflow's input (operator from the session, never the form),
 * starts rollbackNoteWorkflow, waits a little for it, and shows the note with the outcome.
 */
function buttonRoutes(app: Hono<Env>, deps: InspectorDeps, retire: RetireSupport): void {
  const press = (request: (form: Record<string, unknown>) => RollbackRequest) => async (c: Context<Env>) => {
    const p = noteParams(c);
    const form = await c.req.parseBody();
    if (!p || !(await getNote(deps.db, { tenantId: p.tenant, noteId: p.note }))) return notFound(c);
    const asked = request(form);
    if (asked.kind === 'retire' && !retire.enabled) return problem(c, 409, retire.why);
    const reason = String(form['reason'] ?? '').trim();
    const built = rollbackInput({ tenantId: p.tenant, noteId: p.note }, asked, reason, c.get('operator'));
    if (!built.ok) return problem(c, 400, built.error);
    const workflowId = await deps.rollbacks.start(p.tenant, p.note, built.input);
    await deps.rollbacks.outcome(workflowId, deps.waitMs ?? 30_000);
    return c.redirect(`${noteUrl(p.tenant, p.note)}?workflow=${encodeURIComponent(workflowId)}`, 303);
  };
  const note = '/tenants/:tenant/notes/:note';
  app.post(
    `${note}/rollback`,
    smallBody,
    press((f) => ({ kind: 'version', toVersion: versionField(f['toVersion']) })),
  );
  app.post(
    `${note}/retire`,
    smallBody,
    press(() => ({ kind: 'retire' })),
  );
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
