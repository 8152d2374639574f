import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { Command } from 'commander';
import { ulid } from 'ulid';
import type { RollbackResult } from '../../../activities/rollback.ts';
import type { RollbackRunResult } from '../../../activities/rollback-run.ts';
import { loadConfig } from '../../config.ts';
import { describeInputError, RollbackNoteInput } from '../../contracts/workflow-inputs.ts';
import { RollbackRunWorkflowInput } from '../../contracts/workflow-inputs.ts';
import { rollbackNoteId, rollbackRunId, tenantOfRunId } from '../../contracts/workflow-ids.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

interface Common {
  reason: string;
  operator: string;
  wait?: boolean;
  json?: boolean;
}

/**
 * Starts a workflow on the configured task queue; with `wait`, returns its result. A workflow
 * failure becomes an Error with the failure's own message (exit code 1).
 */
export async function startWorkflow<R>(
  workflowType: string,
  workflowId: string,
  input: unknown,
  wait: boolean,
): Promise<{ workflowId: string; runId: string; result?: R }> {
  const config = loadConfig();
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const handle = await client.workflow.start(workflowType, {
      taskQueue: config.temporal.taskQueue,
      workflowId,
      args: [input],
    });
    if (!wait) return { workflowId, runId: handle.firstExecutionRunId };
    try {
      return { workflowId, runId: handle.firstExecutionRunId, result: (await handle.result()) as R };
    } catch (error) {
      if (error instanceof WorkflowFailedError)
        throw new Error(`${workflowId} failed: ${error.cause?.message ?? error.message}`, { cause: error });
      throw error;
    }
  } finally {
    await connection.close();
  }
}

function printChanges(
  changes: Array<{ noteId: string; fromVersion: number | null; toVersion: number; action?: string }>,
): void {
  if (changes.length === 0) printLine('  no change: already at the target (a repeated rollback is a no-op)');
  for (const c of changes)
    printLine(`  ${c.noteId} v${c.fromVersion ?? '-'} -> v${c.toVersion}${c.action ? ` (${c.action})` : ''}`);
}

export function registerRollback(program: Command): void {
  const rollback = program
    .command('rollback')
    .description('roll back a note or a whole run (writes new versions; history is kept)');

  rollback
    .command('note')
    .description('write a new version of a note equal to an earlier one, restoring what it superseded')
    .requiredOption('--tenant <id>', 'tenant of the note')
    .requiredOption('--note <id>', 'note id')
    .requiredOption('--to-version <n>', 'version to return to')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .requiredOption('--operator <name>', 'who (the audit actor)')
    .option('--wait', 'wait for the result')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: Common & { tenant: string; note: string; toVersion: string }) => {
      const input = {
        tenantId: opts.tenant,
        noteId: opts.note,
        toVersion: Number(opts.toVersion),
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
      if (started.result) printChanges(started.result.changes);
    });

  rollback
    .command('run')
    .description('roll back every note version a consolidation run changed (notes it created are retired)')
    .requiredOption('--run <id>', 'run id, as in the run report (consolidate/<tenant>/…)')
    .option('--tenant <id>', 'tenant of the run (derived from the run id when it names one)')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .requiredOption('--operator <name>', 'who (the audit actor)')
    .option('--wait', 'wait for the result')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: Common & { run: string; tenant?: string }) => {
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
      );
      if (opts.json) return printJson(started);
      printLine(`${opts.wait ? 'finished' : 'started'} ${started.workflowId}`);
      if (started.result) {
        printChanges(started.result.changes);
        for (const s of started.result.skipped) printLine(`  ${s.noteId} left as it is (${s.why})`);
      }
    });
}
