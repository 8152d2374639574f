import type { NoteStatus, NoteVersion } from '../../contracts/note.ts';
import type { Queryable } from '../db.ts';
import { NoteVersionRow, VERSION_COLUMNS } from './version-row.ts';
import { claimContains, likePattern } from './search-queries.ts';

export async function selectCurrentVersion(
  tx: Queryable,
  p: { tenantId: string; noteId: string },
): Promise<NoteVersion | undefined> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.tenant_id = $1 AND n.note_id = $2`,
    [p.tenantId, p.noteId],
  );
  return rows[0] === undefined ? undefined : NoteVersionRow.parse(rows[0]);
}

/** Current versions in note id order after `afterNoteId` (keyset paging: stable under inserts). */
export async function selectCurrentVersionsPage(
  tx: Queryable,
  p: { tenantId: string; status?: NoteStatus | undefined; afterNoteId?: string | undefined; limit: number },
): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.tenant_id = $1
        AND ($2::text IS NULL OR n.status = $2)
        AND ($3::text IS NULL OR n.note_id > $3)
      ORDER BY n.note_id
      LIMIT $4`,
    [p.tenantId, p.status ?? null, p.afterNoteId ?? null, p.limit],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

export async function selectNoteVersions(
  tx: Queryable,
  p: { tenantId: string; noteId: string },
): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS} FROM note_versions v WHERE v.tenant_id = $1 AND v.note_id = $2 ORDER BY v.version`,
    [p.tenantId, p.noteId],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

/** Current versions, any status, whose claim contains `text` (case-insensitive), most recently changed first. */
export async function selectCurrentVersionsByText(
  tx: Queryable,
  p: { tenantId: string; text: string; limit: number },
): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.tenant_id = $1 AND ${claimContains('$2')}
      ORDER BY v.created_at DESC, n.note_id
      LIMIT $3`,
    [p.tenantId, likePattern(p.text), p.limit],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}
