import type { NoteKind, NoteScope, NoteStatus, NoteVersion } from '../../contracts/note.ts';
import type { Queryable } from '../db.ts';
import { NoteVersionRow, VERSION_COLUMNS } from './version-row.ts';

export interface NoteSearch {
  tenantId: string;
  /** Words of the claim (case-insensitive substring), or a note id. */
  text?: string | undefined;
  status?: NoteStatus | undefined;
  kind?: NoteKind | undefined;
  scopeLevel?: NoteScope['level'] | undefined;
  scopeKey?: string | undefined;
  limit: number;
}

/** `%` and `_` typed by a person are letters, not wildcards. */
export const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A claim that contains the pattern in any letter case: the built-in C.UTF-8 collation folds
 * case by Unicode ("überweisungen" finds "Überweisungen") in a database without a locale too,
 * where ILIKE alone folds A–Z only. `$n` is the pattern's parameter.
 */
export const claimContains = (param: string): string => `v.claim ILIKE (${param}::text COLLATE pg_c_utf8) ESCAPE '\\'`;

/**
 * Current versions of notes in every status whose claim contains `text` (or whose id is `text`),
 * newest first: how an operator finds the note behind a bad answer.
 */
export async function selectNotesMatching(tx: Queryable, p: NoteSearch): Promise<NoteVersion[]> {
  const text = p.text?.trim() ? p.text.trim() : null;
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.tenant_id = $1
        AND ($2::text IS NULL OR ${claimContains('$3')} OR n.note_id = $2)
        AND ($4::text IS NULL OR n.status = $4)
        AND ($5::text IS NULL OR v.kind = $5)
        AND ($6::text IS NULL OR v.scope_level = $6)
        AND ($7::text IS NULL OR v.scope_key = $7)
      ORDER BY v.created_at DESC, n.note_id
      LIMIT $8`,
    [
      p.tenantId,
      text,
      text === null ? null : likePattern(text),
      p.status ?? null,
      p.kind ?? null,
      p.scopeLevel ?? null,
      p.scopeKey?.trim() ? p.scopeKey.trim() : null,
      p.limit,
    ],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}
