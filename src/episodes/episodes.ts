import { readObject, type ArchiveStore, type ReadOptions } from '../archive/index.ts';
import type { ArchivedRecord, Episode } from '../contracts/episode.ts';
import type { EvidenceRef } from '../contracts/note.ts';
import type { ResolvedRecord } from '../../policies/validation.ts';
import type { EpisodePart } from './candidates.ts';

/** Archive objects read at once within a batch. @default 4 */
export const READ_CONCURRENCY = 4;

/** Runs `fn` over `items` with at most `limit` in flight; the first failure rejects. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * The worker's inflated objects (a run's batches read the same objects) and the tenant's erasure
 * epoch read before this batch (`selectArchiveCacheEpoch`), under which held copies need no HEAD.
 */
export type CachedReads = Pick<ReadOptions, 'cache' | 'erasureEpoch'>;

export interface PlannedEpisode {
  key: string;
  parts: EpisodePart[];
}

/**
 * Reads just the planned lines, each object once per batch, and groups them into episodes in
 * observation order. `onObject` is called after each object (for activity heartbeats). An object
 * listed at planning and gone by now (erased, or removed by retention) is skipped and named in
 * `missingObjects`: retrying cannot bring it back, and the run's other episodes stay valid.
 */
export async function loadEpisodes(
  store: ArchiveStore,
  tenantId: string,
  planned: readonly PlannedEpisode[],
  options: {
    onObject?: (objectKey: string) => void;
    window?: { from?: string | undefined; to?: string | undefined };
  } & CachedReads = {},
): Promise<{ episodes: Episode[]; quarantined: number; missingObjects: string[] }> {
  const inWindow = windowFilter(options.window);
  const wanted = new Map<string, Map<number, string>>();
  for (const ep of planned) {
    for (const part of ep.parts) {
      const lines = wanted.get(part.objectKey) ?? new Map<number, string>();
      for (const line of part.lines) lines.set(line, ep.key);
      wanted.set(part.objectKey, lines);
    }
  }
  const grouped = new Map<string, ArchivedRecord[]>(planned.map((p) => [p.key, []]));
  let quarantined = 0;
  const missingObjects: string[] = [];
  // Objects are independent: read a few at once, since each read mostly waits on the store.
  await forEachLimited([...wanted], READ_CONCURRENCY, async ([objectKey, lines]) => {
    const found: ArchivedRecord[] = [];
    const reader = readObject(store, objectKey, {
      lines: [...lines.keys()].sort((a, b) => a - b),
      cache: options.cache,
      erasureEpoch: options.erasureEpoch,
    });
    try {
      for await (const r of reader) {
        if (r.record.tenantId !== tenantId || !inWindow(r.record.observedAt)) continue;
        found.push({
          record: r.record,
          ref: { recordId: r.record.id, objectKey, line: r.line, contentHash: r.contentHash },
        });
      }
    } catch (error) {
      if ((error as Error).name !== 'ArchiveObjectNotFoundError') throw error;
      missingObjects.push(objectKey);
      return;
    }
    for (const f of found) grouped.get(lines.get(f.ref.line) ?? '')?.push(f);
    quarantined += reader.stats.quarantined;
    options.onObject?.(objectKey);
  });
  const episodes = [...grouped.entries()].flatMap(([key, records]) =>
    records.length > 0 ? [toEpisode(key, records)] : [],
  );
  return { episodes, quarantined, missingObjects: missingObjects.sort() };
}

/** Groups one episode's records in observation order, taking task type and user from any record that has them. */
export function toEpisode(key: string, records: ArchivedRecord[]): Episode {
  records.sort(
    (a, b) => a.record.observedAt.localeCompare(b.record.observedAt) || a.record.id.localeCompare(b.record.id),
  );
  const first = (records[0] as ArchivedRecord).record;
  const userId = records.find((r) => r.record.userId)?.record.userId;
  const taskType = records.find((r) => r.record.taskType)?.record.taskType;
  return {
    key,
    tenantId: first.tenantId,
    sessionId: first.sessionId,
    agentId: first.agentId,
    ...(first.taskId ? { taskId: first.taskId } : {}),
    ...(taskType ? { taskType } : {}),
    ...(userId ? { userId } : {}),
    records,
  };
}

/**
 * Resolves evidence refs against the archive: the record at (object, line) with its stored
 * hash. Records already read in this batch are reused; the rest are read by line.
 */
export async function resolveEvidence(
  store: ArchiveStore,
  refs: readonly EvidenceRef[],
  known: readonly ArchivedRecord[],
  cached: CachedReads = {},
): Promise<Map<string, ResolvedRecord>> {
  const resolved = new Map<string, ResolvedRecord>();
  const at = (objectKey: string, line: number) => `${objectKey}#${line}`;
  const byPlace = new Map(known.map((k) => [at(k.ref.objectKey, k.ref.line), k]));
  const missing = new Map<string, Set<number>>();
  for (const ref of refs) {
    const hit = byPlace.get(at(ref.objectKey, ref.line));
    if (hit) {
      if (hit.record.id === ref.recordId)
        resolved.set(ref.recordId, { record: hit.record, contentHash: hit.ref.contentHash });
    } else {
      missing.set(ref.objectKey, (missing.get(ref.objectKey) ?? new Set()).add(ref.line));
    }
  }
  await forEachLimited([...missing], READ_CONCURRENCY, async ([objectKey, lines]) => {
    try {
      const sorted = [...lines].sort((a, b) => a - b);
      for await (const r of readObject(store, objectKey, {
        lines: sorted,
        cache: cached.cache,
        erasureEpoch: cached.erasureEpoch,
      })) {
        resolved.set(r.record.id, { record: r.record, contentHash: r.contentHash });
      }
    } catch (error) {
      // An erased or missing object resolves nothing: validation then rejects the refs.
      if ((error as Error).name !== 'ArchiveObjectNotFoundError') throw error;
    }
  });
  return resolved;
}

/** Inclusive bounds on observedAt; an absent bound is open. */
function windowFilter(
  window: { from?: string | undefined; to?: string | undefined } | undefined,
): (observedAt: string) => boolean {
  const from = window?.from ? Date.parse(window.from) : -Infinity;
  const to = window?.to ? Date.parse(window.to) : Infinity;
  return (observedAt) => {
    const t = Date.parse(observedAt);
    return t >= from && t <= to;
  };
}
