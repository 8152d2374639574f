import type { Client } from '@temporalio/client';
import { ulid } from 'ulid';
import type { RollbackResult } from '../../../activities/rollback.ts';
import type { RollbackRunResult } from '../../../activities/rollback-run.ts';
import { describeInputError, RollbackNoteInput } from '../../contracts/workflow-inputs.ts';
import { RollbackRunWorkflowInput } from '../../contracts/workflow-inputs.ts';
import { rollbackNoteId, rollbackRunId, tenantOfRunId } from '../../contracts/workflow-ids.ts';
import { UsageError } from '../errors.ts';
import { runningConsolidation } from '../running-consolidation.ts';
import { printJson, printLine } from '../output.ts';
import { startWorkflow } from '../start-workflow.ts';

interface Common {
  reason: string;
  operator: string;
  wait?: boolean;
  json?: boolean;
}

export type RollbackNoteOptions = Common & {
  tenant: string;
  note: string;
  toVersion?: string;
  action?: string;
  successor?: string;
};
export type RollbackRunOptions = Common & { run: string; tenant?: string };

function printChanges(
  changes: Array<{ noteId: string; fromVersion: number | null; toVersion: number; action?: string }>,
): void {
  if (changes.length === 0) printLine('  no change: already at the target (a repeated rollback is a no-op)');
  for (const c of changes)
    printLine(`  ${c.noteId} v${c.fromVersion ?? '-'} -> v${c.toVersion}${c.action ? ` (${c.action})` : ''}`);
}

/** `nocturne rollback note` */
export async function rollbackNoteCommand(opts: RollbackNoteOptions): Promise<void> {
  const input = {
    tenantId: opts.tenant,
    noteId: opts.note,
    ...(opts.toVersion !== undefined ? { toVersion: Number(opts.toVersion) } : {}),
    ...(opts.action !== undefined ? { action: opts.action } : {}),
    ...(opts.successor !== undefined ? { successor: opts.successor } : {}),
    reason: opts.reason,
    operator: opts.operator,
  };
  const parsed = RollbackNoteInput.safeParse(input);
  if (!parsed.success) throw new UsageError(describeInputError(parsed.error));
  const started = await startWorkflow<RollbackResult>(
    'rollbackNoteWorkflow',
    rollbackNoteId(input.tenantId, input.noteId, ulid()),
    parsed.data,
    opts.wait ?? false,
  );
  if (opts.json) return printJson(started);
  printLine(`${opts.wait ? 'finished' : 'started'} ${started.workflowId}`);
  if (started.result) {
    if (started.result.retried) printLine('  an earlier attempt of this request committed; what it did:');
    printChanges(started.result.changes);
    for (const s of started.result.skipped ?? []) printLine(`  ${s.noteId} left as it is (${s.why})`);
  }
}

/**
 * A run rollback restores what many notes were before a run; a consolidation of the tenant still
 * running would go on committing beside it (the rolled-back run itself would commit its next
 * batches and mark itself completed over `rolled_back`). So it refuses while one runs, as
 * `nocturne run` does, before starting anything; the tenant's operation lease refuses the same
 * inside the workflow, however it was started (policies/tenant-operations.ts). A note rollback
 * does not: it changes one note under optimistic concurrency, and a commit that meets it
 * re-plans its batch.
 */
async function refuseWhileConsolidating(client: Client, tenantId: string): Promise<void> {
  const running = await runningConsolidation(client, tenantId);
  if (running)
    throw new Error(
      `a consolidation of ${tenantId} is running (${running}): roll the run back after it finishes (a staged run waiting for approval: decide it first with \`nocturne approve|reject ${running}\`)`,
    );
}

/** `nocturne rollback run` */
export async function rollbackRunCommand(opts: RollbackRunOptions): Promise<void> {
  const input = {
    runId: opts.run,
    reason: opts.reason,
    operator: opts.operator,
    ...(opts.tenant ? { tenantId: opts.tenant } : {}),
  };
  const parsed = RollbackRunWorkflowInput.safeParse(input);
  if (!parsed.success) throw new UsageError(describeInputError(parsed.error));
  const derived = tenantOfRunId(input.runId);
  const tenantId = parsed.data.tenantId ?? derived;
  if (!tenantId) throw new UsageError('--tenant is required when the run id does not name its tenant');
  if (derived && derived !== tenantId)
    throw new UsageError(`--tenant ${tenantId} does not match the run id's tenant ${derived}`);
  const started = await startWorkflow<RollbackRunResult>(
    'rollbackRunWorkflow',
    rollbackRunId(tenantId, ulid()),
    { ...parsed.data, tenantId },
    opts.wait ?? false,
    (client) => refuseWhileConsolidating(client, tenantId),
  );
  if (opts.json) return printJson(started);
  printLine(`${opts.wait ? 'finished' : 'started'} ${started.workflowId}`);
  if (started.result) {
    printChanges(started.result.changes);
    for (const s of started.result.skipped) printLine(`  ${s.noteId} left as it is (${s.why})`);
  }
}
