import { openApiDocument, V1_ROUTES, type RouteSpec } from './openapi.ts';

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** Markdown-ish code spans in descriptions become <code>. */
const prose = (s: string): string => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{margin-top:2.5rem;border-top:1px solid #ddd;padding-top:1rem}.m{font:bold 13px monospace;padding:2px 6px;border-radius:3px;color:#fff}
.post{background:#2b6cb0}.get{background:#2f855a}pre{background:#f6f6f6;padding:.75rem;overflow:auto;font-size:12px;max-height:24rem}
code{background:#f1f1f1;padding:0 3px}details{margin:.5rem 0}summary{cursor:pointer}`;

/**
 * The API's reference page, rendered on the server from the same OpenAPI document as
 * `/openapi.json` (no script and nothing fetched from elsewhere: it works offline).
 */
export function renderDocsPage(): string {
  const doc = openApiDocument() as {
    info: { title: string; description: string };
    components: { schemas: Record<string, unknown> };
  };
  const schema = (name: string) =>
    `<details><summary><code>${escape(name)}</code></summary><pre>${escape(JSON.stringify(doc.components.schemas[name], null, 2))}</pre></details>`;
  const route = (
    r: RouteSpec,
  ) => `<h2 id="${escape(r.method + r.path)}"><span class="m ${r.method}">${r.method.toUpperCase()}</span> <code>${escape(r.path)}</code></h2>
<p><strong>${prose(r.summary)}.</strong> ${prose(r.description)}</p>
${r.request ? `<p>Request body (JSON):</p>${r.request.map(schema).join('')}` : ''}
<p>Answer ${r.response.status}:</p>${schema(r.response.schema)}
<p>Errors: ${r.errors.join(', ')} — <code>{"error": {"status", "code", "reason"}}</code></p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)}</title>
<style>${STYLE}</style></head><body><h1>${escape(doc.info.title)} — v1</h1><p>${prose(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). MCP (Streamable HTTP): <code>POST /mcp</code>, tools <code>recall</code>, <code>append_records</code>, <code>report_conflict</code>, <code>get_note</code>.</p>
<ul>${V1_ROUTES.map((r) => `<li><a href="#${escape(r.method + r.path)}">${r.method.toUpperCase()} ${escape(r.path)}</a> — ${prose(r.summary)}</li>`).join('')}</ul>
${V1_ROUTES.map(route).join('\n')}</body></html>`;
}
