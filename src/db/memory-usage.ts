import { z } from 'zod';
import { IsoDateTime } from '../contracts/ids.ts';
import type { Db, Queryable } from './db.ts';
import { isoColumn } from './rows.ts';
import { withTenant } from './tenant.ts';

export const MemoryUsageRow = z.object({
  taskId: z.string().min(1),
  noteId: z.string().min(1),
  version: z.number().int().min(1),
  rank: z.number().int().min(1),
  score: z.number().finite(),
  at: IsoDateTime,
});
export type MemoryUsageRow = z.infer<typeof MemoryUsageRow>;

/**
 * Logs which note versions a recall returned for a task. Keyed by (task, note, version), so a
 * retried recall log inserts nothing twice. Returns the number of new rows.
 */
export async function insertMemoryUsage(db: Db, p: { tenantId: string; rows: MemoryUsageRow[] }): Promise<number> {
  const rows = z.array(MemoryUsageRow).parse(p.rows);
  if (rows.length === 0) return 0;
  const records = rows.map((r) => ({
    task_id: r.taskId,
    note_id: r.noteId,
    version: r.version,
    rank: r.rank,
    score: r.score,
    at: r.at,
  }));
  const { rowCount } = await withTenant(db, p.tenantId, (tx) =>
    tx.query(
      `INSERT INTO memory_usage (tenant_id, task_id, note_id, version, rank, score, at)
       SELECT $1, r.task_id, r.note_id, r.version, r.rank, r.score, r.at
         FROM jsonb_to_recordset($2::jsonb) AS r(task_id text, note_id text, version int, rank int, score float8, at timestamptz)
       ON CONFLICT (tenant_id, task_id, note_id, version) DO NOTHING`,
      [p.tenantId, JSON.stringify(records)],
    ),
  );
  return rowCount;
}

/**
 * The notes recall returned for these tasks (the usage log), oldest first: consolidation reads
 * them as the tasks' recalled notes, as it reads archived `memory_used` records.
 */
export async function selectUsageForTasks(
  tx: Queryable,
  p: { taskIds: string[] },
): Promise<Array<{ taskId: string; noteId: string; version: number }>> {
  if (p.taskIds.length === 0) return [];
  const { rows } = await tx.query(
    `SELECT task_id, note_id, version FROM memory_usage WHERE task_id = ANY($1::text[]) ORDER BY at, task_id, rank`,
    [p.taskIds],
  );
  return rows.map((r) =>
    z
      .object({ task_id: z.string(), note_id: z.string(), version: z.coerce.number().int() })
      .transform((x) => ({ taskId: x.task_id, noteId: x.note_id, version: x.version }))
      .parse(r),
  );
}

/** The usage log of one note (every version), newest first: which tasks recall gave it to. */
export async function selectUsageForNote(
  tx: Queryable,
  p: { tenantId: string; noteId: string; limit: number },
): Promise<MemoryUsageRow[]> {
  const { rows } = await tx.query(
    `SELECT task_id, note_id, version, rank, score, at FROM memory_usage
      WHERE tenant_id = $1 AND note_id = $2 ORDER BY at DESC, task_id LIMIT $3`,
    [p.tenantId, p.noteId, p.limit],
  );
  return rows.map((r) =>
    z
      .object({
        task_id: z.string(),
        note_id: z.string(),
        version: z.coerce.number().int(),
        rank: z.coerce.number().int(),
        score: z.coerce.number(),
        at: isoColumn,
      })
      .transform((x): MemoryUsageRow => ({
        taskId: x.task_id,
        noteId: x.note_id,
        version: x.version,
        rank: x.rank,
        score: x.score,
        at: x.at,
      }))
      .parse(r),
  );
}
