import { ArchiveObjectNotFoundError, parseDataKey, readObject, type ArchiveStore } from '../archive/index.ts';
import type { RawRecord } from '../contracts/raw-record.ts';
import type { EvidenceRef, NoteVersion } from '../contracts/note.ts';

/** One cited record as read back from the archive, with the verdict on its hash. */
export interface OpenedEvidence {
  ref: EvidenceRef;
  /** The versions of the note that cite it. */
  citedBy: number[];
  /**
   * `ok`: the line's sha256 is the one cited and it holds the cited record; `mismatch`: the line
   * changed (or holds another record); `missing`: no such object or line (erased or never written);
   * `foreign`: the key is not one of this tenant's objects, so it is not read.
   */
  check: 'ok' | 'mismatch' | 'missing' | 'foreign';
  /** The hash of the stored line, when it was read. */
  storedHash?: string;
  record?: RawRecord;
  detail?: string;
}

/** Evidence of every version of a note, once per (object, line), in the order first cited. */
export function citedRefs(versions: readonly NoteVersion[]): Array<{ ref: EvidenceRef; citedBy: number[] }> {
  const byPlace = new Map<string, { ref: EvidenceRef; citedBy: number[] }>();
  for (const v of versions) {
    for (const ref of v.evidence) {
      const place = `${ref.objectKey}#${ref.line}#${ref.contentHash}`;
      const seen = byPlace.get(place) ?? { ref, citedBy: [] };
      seen.citedBy.push(v.version);
      byPlace.set(place, seen);
    }
  }
  return [...byPlace.values()];
}

/**
 * Opens a note's evidence from the archive: each cited object is read once, for just the cited
 * lines, and each line's stored hash is compared with the one the note cites.
 */
export async function openEvidence(
  archive: ArchiveStore,
  tenantId: string,
  versions: readonly NoteVersion[],
): Promise<OpenedEvidence[]> {
  const cited = citedRefs(versions);
  const byObject = new Map<string, number[]>();
  for (const { ref } of cited)
    if (parseDataKey(ref.objectKey)?.tenantId === tenantId)
      byObject.set(ref.objectKey, [...(byObject.get(ref.objectKey) ?? []), ref.line]);
  const read = new Map<string, { record: RawRecord; hash: string } | { detail: string }>();
  for (const [objectKey, lines] of byObject) {
    try {
      const reader = readObject(archive, objectKey, { lines: [...new Set(lines)].sort((a, b) => a - b) });
      for await (const r of reader) read.set(`${objectKey}#${r.line}`, { record: r.record, hash: r.contentHash });
      for (const q of reader.quarantined) read.set(`${objectKey}#${q.line}`, { detail: `${q.reason}: ${q.detail}` });
    } catch (error) {
      if (!(error instanceof ArchiveObjectNotFoundError)) throw error;
      for (const line of lines) read.set(`${objectKey}#${line}`, { detail: 'the archive object no longer exists' });
    }
  }
  return cited.map(({ ref, citedBy }) => verdict(ref, citedBy, tenantId, read.get(`${ref.objectKey}#${ref.line}`)));
}

function verdict(
  ref: EvidenceRef,
  citedBy: number[],
  tenantId: string,
  found: { record: RawRecord; hash: string } | { detail: string } | undefined,
): OpenedEvidence {
  if (parseDataKey(ref.objectKey)?.tenantId !== tenantId)
    return { ref, citedBy, check: 'foreign', detail: `not an archive object of tenant ${tenantId}` };
  if (found === undefined) return { ref, citedBy, check: 'missing', detail: 'line not found' };
  if ('detail' in found) return { ref, citedBy, check: 'missing', detail: found.detail };
  const same = found.hash === ref.contentHash && found.record.id === ref.recordId;
  return { ref, citedBy, check: same ? 'ok' : 'mismatch', storedHash: found.hash, record: found.record };
}
