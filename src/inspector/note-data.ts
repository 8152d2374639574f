import type { AuditEntry } from '../contracts/audit.ts';
import type { NoteVersion } from '../contracts/note.ts';
import {
  diffVersions,
  getNoteHistory,
  selectUsageForNote,
  verifyAuditChain,
  withTenant,
  type AuditChainReport,
  type Db,
  type MemoryUsageRow,
  type VersionDiff,
} from '../db/index.ts';

/** Usage rows shown per note; the page says when there are more. @default 50 */
export const USAGE_SHOWN = 50;

export interface NotePageData {
  tenantId: string;
  current: NoteVersion;
  versions: NoteVersion[];
  diffs: VersionDiff[];
  audit: AuditEntry[];
  /** The tenant's whole audit chain, recomputed from its first entry. */
  chain: AuditChainReport;
  usage: MemoryUsageRow[];
}

/** Everything the note page shows, read in a few queries; undefined when the tenant has no such note. */
export async function loadNotePage(db: Db, tenantId: string, noteId: string): Promise<NotePageData | undefined> {
  const { versions, audit } = await getNoteHistory(db, { tenantId, noteId });
  const current = versions.at(-1);
  if (!current) return undefined;
  const [chain, usage] = await Promise.all([
    verifyAuditChain(db, tenantId),
    withTenant(db, tenantId, (tx) => selectUsageForNote(tx, { tenantId, noteId, limit: USAGE_SHOWN + 1 })),
  ]);
  return { tenantId, current, versions, diffs: diffVersions(versions), audit, chain, usage };
}
