import { z } from 'zod';
import { IsoDateTime } from '../contracts/ids.ts';
import { EvidenceRef } from '../contracts/note.ts';
import type { Db, Queryable } from './db.ts';
import { isoColumn } from './rows.ts';
import { withTenant } from './tenant.ts';

export const FeedbackRow = z.object({
  feedbackId: z.string().min(1),
  noteId: z.string().min(1),
  version: z.number().int().min(1),
  verdict: z.enum(['helped', 'wrong']),
  /** The archived `feedback` record: what a note version cites once the feedback is acted on. */
  evidence: EvidenceRef,
  at: IsoDateTime,
});
export type FeedbackRow = z.infer<typeof FeedbackRow>;

/** Stores one feedback; keyed by its id, so a retried insert adds nothing. */
export async function insertFeedback(db: Db, p: { tenantId: string; row: FeedbackRow }): Promise<void> {
  const r = FeedbackRow.parse(p.row);
  await withTenant(db, p.tenantId, (tx) =>
    tx.query(
      `INSERT INTO note_feedback (tenant_id, feedback_id, note_id, version, verdict, evidence, at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
       ON CONFLICT (tenant_id, feedback_id) DO NOTHING`,
      [p.tenantId, r.feedbackId, r.noteId, r.version, r.verdict, JSON.stringify(r.evidence), r.at],
    ),
  );
}

/**
 * Feedback not yet acted on, oldest first: on an active note whose current version does not cite
 * the feedback's record. Acting on it (a contradiction or a confirmation) cites that record, so
 * a feedback is used once, whichever run or retry gets to it.
 */
export async function selectPendingFeedback(tx: Queryable, p: { limit: number }): Promise<FeedbackRow[]> {
  const { rows } = await tx.query(
    `SELECT f.feedback_id, f.note_id, f.version, f.verdict, f.evidence, f.at
       FROM note_feedback f
       JOIN notes n ON n.tenant_id = f.tenant_id AND n.note_id = f.note_id AND n.status = 'active'
       JOIN note_versions v ON v.tenant_id = n.tenant_id AND v.note_id = n.note_id AND v.version = n.current_version
      WHERE NOT v.evidence @> jsonb_build_array(jsonb_build_object('recordId', f.evidence->>'recordId'))
      ORDER BY f.at, f.feedback_id
      LIMIT $1`,
    [p.limit],
  );
  return rows.map((r) =>
    z
      .object({
        feedback_id: z.string(),
        note_id: z.string(),
        version: z.coerce.number().int(),
        verdict: z.enum(['helped', 'wrong']),
        evidence: z.unknown(),
        at: isoColumn,
      })
      .transform((x) =>
        FeedbackRow.parse({
          feedbackId: x.feedback_id,
          noteId: x.note_id,
          version: x.version,
          verdict: x.verdict,
          evidence: typeof x.evidence === 'string' ? JSON.parse(x.evidence) : x.evidence,
          at: x.at,
        }),
      )
      .parse(r),
  );
}
