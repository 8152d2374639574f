import type { AuditEntry } from '../../contracts/audit.ts';
import type { NoteStatus, NoteVersion } from '../../contracts/note.ts';
import { selectNoteAudit } from '../audit/queries.ts';
import type { Db } from '../db.ts';
import { withTenant } from '../tenant.ts';
import { selectCurrentVersion, selectCurrentVersionsPage, selectNoteVersions } from './read-queries.ts';

/** The note's current version, or undefined when the tenant has no such note. */
export async function getNote(db: Db, p: { tenantId: string; noteId: string }): Promise<NoteVersion | undefined> {
  return withTenant(db, p.tenantId, (tx) => selectCurrentVersion(tx, p));
}

export interface ListNotesParams {
  tenantId: string;
  status?: NoteStatus | undefined;
  /** Page size, 1..1000. */
  limit: number;
  /** `nextCursor` of the previous page. */
  cursor?: string | undefined;
}

export interface NotePage {
  notes: NoteVersion[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export async function listNotes(db: Db, p: ListNotesParams): Promise<NotePage> {
  if (!Number.isInteger(p.limit) || p.limit < 1 || p.limit > 1000)
    throw new RangeError(`limit must be 1..1000, got ${p.limit}`);
  // One extra row tells whether another page exists without a count query.
  const rows = await withTenant(db, p.tenantId, (tx) =>
    selectCurrentVersionsPage(tx, {
      tenantId: p.tenantId,
      status: p.status,
      afterNoteId: p.cursor,
      limit: p.limit + 1,
    }),
  );
  const notes = rows.slice(0, p.limit);
  return { notes, nextCursor: rows.length > p.limit ? (notes.at(-1)?.noteId ?? null) : null };
}

export interface NoteHistory {
  versions: NoteVersion[];
  audit: AuditEntry[];
}

/** Every version (oldest first) and every audit entry of one note. */
export async function getNoteHistory(db: Db, p: { tenantId: string; noteId: string }): Promise<NoteHistory> {
  return withTenant(db, p.tenantId, async (tx) => ({
    versions: await selectNoteVersions(tx, p),
    audit: await selectNoteAudit(tx, p),
  }));
}
