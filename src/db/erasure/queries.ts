import { z } from 'zod';
import type { NoteVersion } from '../../contracts/note.ts';
import type { Queryable } from '../db.ts';
import { NoteVersionRow, VERSION_COLUMNS } from '../notes/version-row.ts';
import { intColumn } from '../rows.ts';

/**
 * Queries of subject erasure (migration 0007). Each takes `(tx, params)` inside withTenant; the
 * writes that touch immutable tables go through the migration's SECURITY DEFINER functions.
 */

export const ERASED_CLAIM = '[erased]';
export const ERASED_SCOPE_KEY = 'erased';

export async function insertErasureWork(
  tx: Queryable,
  p: { tenantId: string; subject: string; kind: 'record' | 'needle'; values: string[] },
): Promise<void> {
  if (p.values.length === 0) return;
  await tx.query(
    `INSERT INTO erasure_work (tenant_id, subject, kind, value) SELECT $1, $2, $3, x FROM unnest($4::text[]) AS x
     ON CONFLICT (tenant_id, subject, kind, value) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    [p.tenantId, p.subject, p.kind, p.values],
  );
}

export async function selectErasureWork(
  tx: Queryable,
  p: { subject: string; kind: 'record' | 'needle' },
): Promise<string[]> {
  const { rows } = await tx.query(
    `SELECT value FROM erasure_work WHERE subject = $1 AND kind = $2 AND expires_at > now() ORDER BY value`,
    [p.subject, p.kind],
  );
  return rows.map((r) => z.object({ value: z.string() }).parse(r).value);
}

export async function deleteErasureWork(tx: Queryable, p: { subject: string }): Promise<number> {
  const { rowCount } = await tx.query(`DELETE FROM erasure_work WHERE subject = $1`, [p.subject]);
  return rowCount;
}

/**
 * Current versions of the notes erasure must look at: not yet erased, and citing one of the
 * subject's records (in any version), scoped to the subject, or with a claim (in any version)
 * that quotes them.
 */
export async function selectNotesTouchingSubject(
  tx: Queryable,
  p: { recordIds: string[]; userId: string; needles: string[] },
): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.status <> 'erased'
        AND (EXISTS (SELECT 1 FROM note_versions h, jsonb_array_elements(h.evidence) e
                      WHERE h.tenant_id = n.tenant_id AND h.note_id = n.note_id AND e->>'recordId' = ANY($1::text[]))
             OR (v.scope_level = 'user' AND v.scope_key = $2)
             OR EXISTS (SELECT 1 FROM note_versions h, unnest($3::text[]) x
                         WHERE h.tenant_id = n.tenant_id AND h.note_id = n.note_id AND strpos(h.claim || h.scope_key || coalesce(h.structure::text, ''), x) > 0))
      ORDER BY n.note_id`,
    [p.recordIds, p.userId, p.needles],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}

/** Current versions (not erased) whose evidence cites the given archive object. */
export async function selectNotesCitingObject(tx: Queryable, p: { objectKey: string }): Promise<NoteVersion[]> {
  const { rows } = await tx.query(
    `SELECT ${VERSION_COLUMNS}
       FROM notes n JOIN note_versions v
         ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE n.status <> 'erased'
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(v.evidence) e WHERE e->>'objectKey' = $1)
      ORDER BY n.note_id`,
    [p.objectKey],
  );
  return rows.map((r) => NoteVersionRow.parse(r));
}
/** Notes an erasure (its actor) erased, and notes it re-validated: the report, retry-proof. */
export async function selectErasureOutcome(
  tx: Queryable,
  p: { actor: string },
): Promise<{ erased: string[]; revalidated: string[] }> {
  const { rows } = await tx.query(
    `SELECT n.note_id, n.status, v.created_by_run AS run
       FROM notes n JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id
      WHERE v.created_by_run = $1 OR v.created_by_run LIKE $2
      GROUP BY n.note_id, n.status, v.created_by_run
      ORDER BY n.note_id`,
    [p.actor, `${p.actor}/revalidate/%`],
  );
  const parsed = rows.map((r) => z.object({ note_id: z.string(), status: z.string(), run: z.string() }).parse(r));
  return {
    erased: [...new Set(parsed.filter((r) => r.run === p.actor && r.status === 'erased').map((r) => r.note_id))],
    revalidated: [...new Set(parsed.filter((r) => r.run !== p.actor && r.status !== 'erased').map((r) => r.note_id))],
  };
}

/** Which of these notes are erased now. */
export async function selectErasedAmong(tx: Queryable, p: { noteIds: string[] }): Promise<string[]> {
  if (p.noteIds.length === 0) return [];
  const { rows } = await tx.query(
    `SELECT note_id FROM notes WHERE note_id = ANY($1::text[]) AND status = 'erased' ORDER BY note_id`,
    [p.noteIds],
  );
  return rows.map((r) => z.object({ note_id: z.string() }).parse(r).note_id);
}

export async function selectErasedNoteIds(tx: Queryable): Promise<string[]> {
  const { rows } = await tx.query(`SELECT note_id FROM notes WHERE status = 'erased' ORDER BY note_id`);
  return rows.map((r) => z.object({ note_id: z.string() }).parse(r).note_id);
}

const ScrubRow = z.object({ versions: intColumn, embeddings: intColumn, usage_rows: intColumn });

export async function scrubErasedNotes(
  tx: Queryable,
  p: { noteIds: string[] },
): Promise<{ versions: number; embeddings: number; usageRows: number }> {
  const { rows } = await tx.query(`SELECT * FROM nocturne_scrub_erased_notes($1::text[])`, [p.noteIds]);
  const r = ScrubRow.parse(rows[0]);
  return { versions: r.versions, embeddings: r.embeddings, usageRows: r.usage_rows };
}

export async function scrubRunWork(tx: Queryable, p: { needles: string[] }): Promise<number> {
  const { rows } = await tx.query(`SELECT nocturne_scrub_run_work($1::text[]) AS n`, [p.needles]);
  return z.object({ n: intColumn }).parse(rows[0]).n;
}

const SubjectScrubRow = z.object({
  episodes: intColumn,
  usage_rows: intColumn,
  feedback: intColumn,
  versions: intColumn,
});

/**
 * What else the scan checks, from the erasure's own working set (migration 0017): run episodes
 * and usage rows whose ids contain the subject's strings, feedback rows citing the subject or an
 * erased note, and older versions of notes that stay but once cited or quoted the subject.
 */
export async function scrubSubjectRows(
  tx: Queryable,
  p: { subject: string },
): Promise<{ episodes: number; usageRows: number; feedback: number; versions: number }> {
  const { rows } = await tx.query(`SELECT * FROM nocturne_scrub_subject($1)`, [p.subject]);
  const r = SubjectScrubRow.parse(rows[0]);
  return { episodes: r.episodes, usageRows: r.usage_rows, feedback: r.feedback, versions: r.versions };
}
