import { NOTE_KINDS, NOTE_STATUSES, SCOPE_LEVELS, type NoteVersion } from '../contracts/note.ts';
import { html, type Html } from './html.ts';
import { badge, BASE, noteUrl, page } from './layout.ts';

export interface SearchForm {
  tenant: string;
  text: string;
  status: string;
  kind: string;
  scopeLevel: string;
  scopeKey: string;
}

export interface SearchView {
  operator: string;
  form: SearchForm;
  /** Tenants offered in the tenant field (those with API tokens); any tenant id may be typed. */
  tenants: readonly string[];
  results?: NoteVersion[];
  /** More notes matched than were shown. */
  more?: boolean;
  error?: string;
}

const options = (values: readonly string[], selected: string, anyLabel: string): Html[] => [
  html`<option value="">${anyLabel}</option>`,
  ...values.map((v) => html`<option value="${v}" ${v === selected ? 'selected' : ''}>${v}</option>`),
];

function searchForm(v: SearchView): Html {
  const f = v.form;
  return html`<form method="get" action="${BASE}" class="grid" id="search">
    <label
      >Tenant <input name="tenant" value="${f.tenant}" list="tenants" required placeholder="tenant id" />
      <datalist id="tenants">${v.tenants.map((t) => html`<option value="${t}"></option>`)}</datalist>
    </label>
    <label>Text <input name="text" value="${f.text}" size="36" placeholder="words of the claim, or a note id" /></label>
    <label
      >Status
      <select name="status">
        ${options(NOTE_STATUSES, f.status, 'any status')}
      </select></label
    >
    <label
      >Kind
      <select name="kind">
        ${options(NOTE_KINDS, f.kind, 'any kind')}
      </select></label
    >
    <label
      >Scope
      <select name="scopeLevel">
        ${options(SCOPE_LEVELS, f.scopeLevel, 'any scope')}
      </select></label
    >
    <label>Scope key <input name="scopeKey" value="${f.scopeKey}" size="14" /></label>
    <button type="submit">Search</button>
  </form>`;
}

function resultsTable(tenant: string, notes: NoteVersion[], more: boolean): Html {
  if (notes.length === 0) return html`<p class="muted" id="no-results">No note matches.</p>`;
  return html`<table id="results">
      <thead>
        <tr>
          <th>Claim</th>
          <th>Status</th>
          <th>Kind</th>
          <th>Scope</th>
          <th>Version</th>
          <th>Note</th>
        </tr>
      </thead>
      <tbody>
        ${notes.map(
          (n) =>
            html`<tr>
              <td><a href="${noteUrl(tenant, n.noteId)}">${n.claim}</a></td>
              <td>${badge(n.status)}</td>
              <td>${n.kind}</td>
              <td>${n.scope.level}:${n.scope.key}</td>
              <td>v${n.version}</td>
              <td><code>${n.noteId}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${more ? html`<p class="muted">More notes match: narrow the search.</p>` : ''}`;
}

/** The search page: the form, then the notes that match in every status, newest first. */
export function searchPage(v: SearchView): Html {
  return page(
    'Search notes',
    html`<section>
        <h1>Find a note</h1>
        ${searchForm(v)}
      </section>
      ${v.error ? html`<section><p class="error">${v.error}</p></section>` : ''}
      ${v.results ? html`<section>${resultsTable(v.form.tenant, v.results, v.more ?? false)}</section>` : ''}`,
    v.operator,
  );
}
