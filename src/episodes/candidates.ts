import { parseDataKey, readManifest, tenantPrefix, type ArchiveStore, type Manifest } from '../archive/index.ts';
import type { EpisodeSignals } from '../../policies/sampling.ts';

/** Where an episode's records are: lines per archive object (an episode can span days). */
export interface EpisodePart {
  objectKey: string;
  lines: number[];
}

export interface EpisodeCandidate {
  key: string;
  taskType?: string;
  parts: EpisodePart[];
  signals: EpisodeSignals & { hasMemoryUsed: boolean };
  recordCount: number;
}

export interface Window {
  from?: string;
  to?: string;
}

/**
 * Episode candidates of a tenant's window, from manifests alone: sampling never opens a data
 * object, so its cost follows the number of objects, not their size.
 */
export async function listCandidates(
  store: ArchiveStore,
  tenantId: string,
  window: Window,
): Promise<EpisodeCandidate[]> {
  const byKey = new Map<string, EpisodeCandidate>();
  for await (const manifest of manifestsInWindow(store, tenantId, window)) {
    for (const e of manifest.episodes) {
      const c: EpisodeCandidate = byKey.get(e.key) ?? {
        key: e.key,
        parts: [],
        recordCount: 0,
        signals: {
          hasUserCorrection: false,
          hasFailure: false,
          hasHighValue: false,
          hasMemoryUsed: false,
          taskTypeShare: 1,
          lastObservedAt: new Date(e.lastObservedAt),
        },
      };
      c.parts.push({ objectKey: manifest.objectKey, lines: e.lines });
      c.recordCount += e.lines.length;
      if (e.taskType) c.taskType = e.taskType;
      c.signals.hasUserCorrection ||= e.correction;
      c.signals.hasFailure ||= e.failure;
      c.signals.hasHighValue ||= e.highValue;
      c.signals.hasMemoryUsed ||= e.memoryUsed;
      const last = new Date(e.lastObservedAt);
      if (last > c.signals.lastObservedAt) c.signals.lastObservedAt = last;
      byKey.set(e.key, c);
    }
  }
  const candidates = [...byKey.values()];
  const typeCounts = new Map<string, number>();
  for (const c of candidates) typeCounts.set(c.taskType ?? '', (typeCounts.get(c.taskType ?? '') ?? 0) + 1);
  for (const c of candidates) c.signals.taskTypeShare = (typeCounts.get(c.taskType ?? '') ?? 0) / candidates.length;
  return candidates.sort((a, b) => a.key.localeCompare(b.key));
}

/** Manifests fetched at once while planning: each fetch mostly waits on the store. @default 8 */
export const MANIFEST_CONCURRENCY = 8;

async function* manifestsInWindow(store: ArchiveStore, tenantId: string, window: Window): AsyncIterable<Manifest> {
  const from = window.from?.slice(0, 10);
  const to = window.to?.slice(0, 10);
  const keys: string[] = [];
  for await (const info of store.list(tenantPrefix(tenantId))) {
    if (!info.key.endsWith('.jsonl.gz')) continue;
    const parts = parseDataKey(info.key);
    if (parts && !(from && parts.date < from) && !(to && parts.date > to)) keys.push(info.key);
  }
  for (let i = 0; i < keys.length; i += MANIFEST_CONCURRENCY) {
    const page = await Promise.all(keys.slice(i, i + MANIFEST_CONCURRENCY).map((key) => readManifest(store, key)));
    for (const manifest of page) {
      if (window.from && manifest.observedAt.max < window.from) continue;
      if (window.to && manifest.observedAt.min > window.to) continue;
      yield manifest;
    }
  }
}
