import { z } from 'zod';
import type { Queryable } from '../db.ts';
import { intColumn } from '../rows.ts';

export interface StoreFinding {
  store:
    | 'note_versions'
    | 'audit_log'
    | 'memory_usage'
    | 'embeddings'
    | 'recall_projection'
    | 'run_work'
    | 'runs'
    | 'record_index'
    | 'embedding_cache'
    | 'note_feedback';
  count: number;
}

const Count = z.object({ n: intColumn });
const count = async (tx: Queryable, sql: string, params: unknown[]): Promise<number> =>
  Count.parse((await tx.query(sql, params)).rows[0]).n;

/**
 * The database half of the verification scan: rows of the tenant in which any of the subject's
 * strings occur, versions and feedback citing the subject's records, usage rows, feedback or
 * embeddings (live or of an unfinished rebuild) left on erased notes. Returns only non-zero findings.
 */
export async function scanDatabaseForSubject(
  tx: Queryable,
  p: { needles: string[]; recordIds?: string[]; userId?: string; claimHashes?: string[] },
): Promise<StoreFinding[]> {
  const any = (expr: string) => `EXISTS (SELECT 1 FROM unnest($1::text[]) x WHERE x <> '' AND strpos(${expr}, x) > 0)`;
  const n = [p.needles];
  const records = p.recordIds ?? [];
  const findings: StoreFinding[] = [
    {
      store: 'note_versions',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM note_versions
          WHERE ${any(`claim || ' ' || scope_key || ' ' || evidence::text || ' ' || coalesce(structure::text, '') || ' ' || coalesce(created_by_run, '')`)}
             OR EXISTS (SELECT 1 FROM jsonb_array_elements(evidence) e WHERE e->>'recordId' = ANY($2::text[]))`,
        [p.needles, records],
      ),
    },
    {
      store: 'audit_log',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM audit_log WHERE ${any(`reason || ' ' || actor || ' ' || note_id`)}`,
        n,
      ),
    },
    {
      store: 'memory_usage',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM memory_usage u WHERE ${any('u.task_id')} OR u.note_id IN (SELECT note_id FROM notes WHERE status = 'erased')`,
        n,
      ),
    },
    {
      store: 'embeddings',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM note_versions
          WHERE (embedding IS NOT NULL OR embedding_next IS NOT NULL)
            AND note_id IN (SELECT note_id FROM notes WHERE status = 'erased')`,
        [],
      ),
    },
    {
      store: 'recall_projection',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM note_recall
          WHERE ${any('scope_key')} OR note_id IN (SELECT note_id FROM notes WHERE status = 'erased')`,
        n,
      ),
    },
    {
      store: 'run_work',
      count:
        (await count(tx, `SELECT count(*) AS n FROM run_batches WHERE ${any(`ops::text || summary::text`)}`, n)) +
        (await count(tx, `SELECT count(*) AS n FROM run_rejections WHERE ${any(`detail || proposal::text`)}`, n)) +
        (await count(tx, `SELECT count(*) AS n FROM run_episodes WHERE ${any(`episode_key || parts::text`)}`, n)),
    },
    {
      store: 'runs',
      count: await count(tx, `SELECT count(*) AS n FROM runs WHERE ${any(`run_id || workflow_id`)}`, n),
    },
    {
      store: 'note_feedback',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM note_feedback f
          WHERE ${any(`f.evidence::text || ' ' || f.feedback_id`)}
             OR f.evidence->>'recordId' = ANY($2::text[])
             OR f.note_id IN (SELECT note_id FROM notes WHERE status = 'erased')`,
        [p.needles, records],
      ),
    },
    ...(await scanRecordIndex(tx, { ...p, records, claimHashes: p.claimHashes ?? [] })),
  ];
  return findings.filter((f) => f.count > 0);
}

/**
 * The raw-record index: rows whose text, text told as a note, or user quotes the subject, or
 * whose vector took in one of the subject's records as the turn before, and cached vectors of the
 * subject's words (keyed by the sha256 of the embedded string: "speaker: text" as said, or the
 * record told as a note, whose hash an indexed row keeps and the scrub records before deleting
 * the row) or of a claim the erasure scrubbed.
 */
async function scanRecordIndex(
  tx: Queryable,
  p: { needles: string[]; userId?: string | undefined; records: string[]; claimHashes: string[] },
): Promise<StoreFinding[]> {
  const { needles, userId, records, claimHashes } = p;
  const any = `EXISTS (SELECT 1 FROM unnest($1::text[]) x WHERE x <> '' AND strpos(r.text || ' ' || coalesce(r.told, '') || ' ' || coalesce(r.user_id, '') || ' ' || r.speaker, x) > 0)`;
  const hashed = `SELECT encode(sha256(convert_to(s, 'UTF8')), 'hex')
                    FROM unnest($1::text[]) x, LATERAL (SELECT x AS s UNION ALL SELECT $2::text || ': ' || x) y`;
  return [
    {
      store: 'record_index',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM record_index r WHERE ${any} OR r.context_record_id = ANY($2::text[])`,
        [needles, records],
      ),
    },
    {
      store: 'embedding_cache',
      count: await count(
        tx,
        `SELECT count(*) AS n FROM embedding_cache
          WHERE content_hash IN (${hashed}) OR content_hash = ANY($3::text[])
             OR content_hash IN (SELECT r.text_hash FROM record_index r WHERE ${any})`,
        [needles, userId ?? '', claimHashes],
      ),
    },
  ];
}
