import { html, raw, type Html } from './html.ts';

/** Where the inspector is mounted on the API server. */
export const BASE = '/inspector';

export const noteUrl = (tenantId: string, noteId: string): string =>
  `${BASE}/tenants/${encodeURIComponent(tenantId)}/notes/${encodeURIComponent(noteId)}`;

// One small style sheet inline: the page loads nothing from anywhere else.
const STYLE = raw(`
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1d2433;color:#fff;padding:10px 20px;display:flex;gap:20px;align-items:center}
header a{color:#fff;text-decoration:none;font-weight:600}header form{margin-left:auto}
main{padding:16px 20px;max-width:1200px}
section{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:12px 16px;margin:0 0 14px}
h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceff2;vertical-align:top}
th{font-weight:600;color:#4a5563}code,pre{font:12px/1.4 ui-monospace,monospace}pre{white-space:pre-wrap;word-break:break-word;margin:4px 0}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;background:#e5e9ef}
.active,.ok,.completed{background:#d5f2dc;color:#14532d}.superseded,.staged,.running{background:#fdf0c8;color:#713f12}
.retired,.quarantined,.erased,.mismatch,.missing,.foreign,.failed,.broken{background:#fbd9d9;color:#7f1d1d}
del{background:#fbd9d9;text-decoration:line-through}ins{background:#d5f2dc;text-decoration:none}
form.inline{display:inline-flex;gap:6px;align-items:center;margin:4px 0}
input,select,button{font:inherit;padding:3px 6px}button{cursor:pointer}button[disabled]{cursor:not-allowed}
.version,.evidence{border-top:1px solid #d8dde3;padding-top:6px;margin-top:8px}
.muted{color:#6b7280}.error{color:#991b1b;font-weight:600}.grid{display:flex;flex-wrap:wrap;gap:10px;align-items:end}
.grid label{display:flex;flex-direction:column;font-size:12px;color:#4a5563}
`);

/** A whole page. `operator` shows who is logged in and a log-out button. */
export function page(title: string, body: Html, operator?: string): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Nocturne inspector</title>
        <style>
          ${STYLE}
        </style>
      </head>
      <body>
        <header>
          <a href="${BASE}">Nocturne · note inspector</a>
          ${
            operator
              ? html`<form method="post" action="${BASE}/logout">
                  <span>operator <strong id="operator">${operator}</strong></span>
                  <button type="submit">Log out</button>
                </form>`
              : ''
          }
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}

export const badge = (text: string): Html => html`<span class="badge ${text}">${text}</span>`;

export function loginPage(message?: string): Html {
  return page(
    'Log in',
    html`<section>
      <h1>Operator login</h1>
      <p class="muted">
        An operator token (NOCTURNE_OPERATOR_TOKENS) opens the inspector; tenants' read tokens do not.
      </p>
      ${message ? html`<p class="error" id="login-error">${message}</p>` : ''}
      <form method="post" action="${BASE}/login" class="inline">
        <label>Operator token <input type="password" name="token" autocomplete="off" required autofocus /></label>
        <button type="submit">Log in</button>
      </form>
    </section>`,
  );
}
