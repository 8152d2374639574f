import { z } from 'zod';
import { Budget, Run, RUN_STATUSES, RUN_TRIGGERS, RunCounts, Spent } from '../contracts/run.ts';
import type { Db, Queryable } from './db.ts';
import { isoColumn, isoColumnNullable } from './rows.ts';
import { BatchResult, type NoteChange } from './notes/ops.ts';
import { withTenant } from './tenant.ts';

export type NewRun = Omit<Run, 'changedVersions' | 'finishedAt'> & { finishedAt?: string | null };

export interface RunUpdate {
  tenantId: string;
  runId: string;
  status?: Run['status'];
  spent?: Spent;
  counts?: RunCounts;
  finishedAt?: string | null;
}

const RunRow = z.object({
  run_id: z.string(),
  workflow_id: z.string(),
  tenant_id: z.string(),
  trigger: z.enum(RUN_TRIGGERS),
  budget: Budget,
  spent: Spent,
  status: z.enum(RUN_STATUSES),
  counts: RunCounts,
  started_at: isoColumn,
  finished_at: isoColumnNullable,
});

const ResultRow = z.object({ result: BatchResult });

/** Records a run's start. Idempotent: a retried start leaves the existing row as it is. */
export async function insertRun(db: Db, run: NewRun): Promise<void> {
  const r = Run.omit({ changedVersions: true }).parse({ ...run, finishedAt: run.finishedAt ?? null });
  await withTenant(db, r.tenantId, (tx) =>
    tx.query(
      `INSERT INTO runs (tenant_id, run_id, workflow_id, trigger, budget, spent, status, counts, started_at, finished_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8::jsonb, $9, $10)
       ON CONFLICT (tenant_id, run_id) DO NOTHING`,
      [
        r.tenantId,
        r.runId,
        r.workflowId,
        r.trigger,
        JSON.stringify(r.budget),
        JSON.stringify(r.spent),
        r.status,
        JSON.stringify(r.counts),
        r.startedAt,
        r.finishedAt,
      ],
    ),
  );
}

/**
 * Updates the fields given; returns false when the run does not exist. A rolled-back run stays
 * `rolled_back`: a run frees the tenant before it reports, so its rollback may land first.
 */
export async function updateRun(db: Db, u: RunUpdate): Promise<boolean> {
  const { rowCount } = await withTenant(db, u.tenantId, (tx) =>
    tx.query(
      `UPDATE runs
          SET status = CASE WHEN status = 'rolled_back' THEN status ELSE COALESCE($3, status) END,
              spent = COALESCE($4::jsonb, spent),
              counts = COALESCE($5::jsonb, counts),
              finished_at = CASE WHEN $6::boolean THEN $7::timestamptz ELSE finished_at END,
              updated_at = now()
        WHERE tenant_id = $1 AND run_id = $2`,
      [
        u.tenantId,
        u.runId,
        u.status ?? null,
        u.spent ? JSON.stringify(Spent.parse(u.spent)) : null,
        u.counts ? JSON.stringify(RunCounts.parse(u.counts)) : null,
        u.finishedAt !== undefined,
        u.finishedAt ?? null,
      ],
    ),
  );
  return rowCount === 1;
}

async function selectRun(tx: Queryable, p: { tenantId: string; runId: string }) {
  const { rows } = await tx.query(
    `SELECT run_id, workflow_id, tenant_id, trigger, budget, spent, status, counts, started_at, finished_at
       FROM runs WHERE tenant_id = $1 AND run_id = $2`,
    [p.tenantId, p.runId],
  );
  return rows[0] === undefined ? undefined : RunRow.parse(rows[0]);
}

/**
 * The versions a run changed, from the results of its applied batches (keyed by run id, so no
 * extra index on note_versions is paid per committed note).
 */
async function selectRunChanges(tx: Queryable, p: { tenantId: string; runId: string }): Promise<NoteChange[]> {
  const { rows } = await tx.query(
    `SELECT result FROM applied_batches WHERE tenant_id = $1 AND run_id = $2 ORDER BY batch_no`,
    [p.tenantId, p.runId],
  );
  return rows.flatMap((r) => ResultRow.parse(r).result.changes);
}

export async function getRun(db: Db, p: { tenantId: string; runId: string }): Promise<Run | undefined> {
  return withTenant(db, p.tenantId, async (tx) => {
    const row = await selectRun(tx, p);
    if (!row) return undefined;
    const changes = await selectRunChanges(tx, p);
    return {
      runId: row.run_id,
      workflowId: row.workflow_id,
      tenantId: row.tenant_id,
      trigger: row.trigger,
      budget: row.budget,
      spent: row.spent,
      status: row.status,
      counts: row.counts,
      changedVersions: changes.map((c) => ({ noteId: c.noteId, fromVersion: c.fromVersion, toVersion: c.toVersion })),
      startedAt: row.started_at,
      finishedAt: row.finished_at,
    };
  });
}
