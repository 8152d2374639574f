import { parseDataKey, readManifest, tenantPrefix, type ArchiveStore } from '../archive/index.ts';

export interface Window {
  from?: string | undefined;
  to?: string | undefined;
}

/** Whether an instant lies inside the window (bounds inclusive). */
export function inWindow(observedAt: string, window: Window): boolean {
  const t = Date.parse(observedAt);
  if (window.from !== undefined && t < Date.parse(window.from)) return false;
  return !(window.to !== undefined && t > Date.parse(window.to));
}

/**
 * The tenant's data objects that may hold records of the window, in key order after `after`:
 * chosen by the day in their key, then by the time range their manifest states. Objects in
 * `skip` (indexed to their end) are left out before their manifest is read; manifests are
 * read only as far as the caller iterates.
 */
export async function* objectsInWindow(
  store: ArchiveStore,
  tenantId: string,
  selection: { window: Window; after: string | null },
  skip: (keys: string[]) => Promise<Set<string>>,
): AsyncGenerator<string> {
  const { window, after } = selection;
  const from = window.from?.slice(0, 10);
  const to = window.to?.slice(0, 10);
  const keys: string[] = [];
  for await (const info of store.list(tenantPrefix(tenantId))) {
    const parts = parseDataKey(info.key);
    if (!parts || (after !== null && info.key <= after)) continue;
    if (!(from && parts.date < from) && !(to && parts.date > to)) keys.push(info.key);
  }
  const done = await skip(keys);
  for (const key of keys.filter((k) => !done.has(k)).sort()) {
    const manifest = await readManifest(store, key);
    if (window.from && Date.parse(manifest.observedAt.max) < Date.parse(window.from)) continue;
    if (window.to && Date.parse(manifest.observedAt.min) > Date.parse(window.to)) continue;
    yield key;
  }
}
