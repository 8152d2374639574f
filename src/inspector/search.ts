import { TenantId } from '../contracts/ids.ts';
import { NOTE_KINDS, NOTE_STATUSES, SCOPE_LEVELS } from '../contracts/note.ts';
import { selectNotesMatching, withTenant, type Db, type NoteSearch } from '../db/index.ts';
import type { Html } from './html.ts';
import { searchPage, type SearchForm } from './search-view.ts';

/** Notes listed per search. @default 100 */
export const RESULTS_SHOWN = 100;

const pick = <T extends string>(values: readonly T[], value: string): T | undefined =>
  (values as readonly string[]).includes(value) ? (value as T) : undefined;

/** Reads the search form from the query string, runs it when a tenant is given, and renders the page. */
export async function runSearch(
  db: Db,
  operator: string,
  query: Record<string, string>,
  tenants: readonly string[],
): Promise<Html> {
  const field = (name: keyof SearchForm) => (query[name] ?? '').trim().slice(0, 500);
  const form: SearchForm = {
    tenant: field('tenant'),
    text: field('text'),
    status: field('status'),
    kind: field('kind'),
    scopeLevel: field('scopeLevel'),
    scopeKey: field('scopeKey'),
  };
  const view = { operator, form, tenants };
  if (form.tenant === '') return searchPage(view);
  if (!TenantId.safeParse(form.tenant).success) return searchPage({ ...view, error: 'That is not a valid tenant id.' });
  const search: NoteSearch = {
    tenantId: form.tenant,
    text: form.text,
    status: pick(NOTE_STATUSES, form.status),
    kind: pick(NOTE_KINDS, form.kind),
    scopeLevel: pick(SCOPE_LEVELS, form.scopeLevel),
    scopeKey: form.scopeKey,
    limit: RESULTS_SHOWN + 1,
  };
  const rows = await withTenant(db, form.tenant, (tx) => selectNotesMatching(tx, search));
  return searchPage({ ...view, results: rows.slice(0, RESULTS_SHOWN), more: rows.length > RESULTS_SHOWN });
}
