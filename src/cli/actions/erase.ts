import { WorkflowFailedError } from '@temporalio/client';
import { EraseSubjectInput, describeInputError } from '../../contracts/workflow-inputs.ts';
import { loadConfig } from '../../config.ts';
import { awaitErasureAndForget, startErasure } from '../../erasure/start.ts';
import { withDb, withTemporalClient } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export interface EraseOptions {
  tenant: string;
  user: string;
  /** Return once started; the history then stays until the namespace's retention ends. */
  detach?: boolean;
  /** Accepted for compatibility: waiting is the default. */
  wait?: boolean;
  json?: boolean;
}

/** `nocturne erase` */
export async function eraseCommand(opts: EraseOptions): Promise<void> {
  const parsed = EraseSubjectInput.safeParse({ tenantId: opts.tenant, userId: opts.user });
  if (!parsed.success) throw new UsageError(describeInputError(parsed.error));
  const config = loadConfig();
  const run = await withDb(config, (db) =>
    withTemporalClient(config, async (client) => {
      const started = await startErasure(client, db, { ...parsed.data, taskQueue: config.temporal.taskQueue });
      if (opts.detach) return started;
      try {
        return await awaitErasureAndForget(client, started);
      } catch (error) {
        if (error instanceof WorkflowFailedError)
          throw new Error(`${started.workflowId} failed: ${error.cause?.message ?? error.message}`, { cause: error });
        throw error;
      }
    }),
  );
  if (opts.json) return printJson(run);
  printLine(`${run.result ? 'finished' : 'started'} ${run.workflowId}`);
  const r = run.result;
  if (!r) return;
  printLine(
    `  archive: ${r.archive.recordsRemoved} records removed; ${r.archive.rewritten} objects rewritten, ${r.archive.deleted} deleted; ${r.archive.notesRepointed} notes re-pointed`,
  );
  printLine(`  notes erased: ${r.notes.erased.join(', ') || 'none'}`);
  printLine(`  notes re-validated on other evidence: ${r.notes.revalidated.join(', ') || 'none'}`);
  const s = r.scrubbed;
  printLine(
    `  scrubbed: ${s.versionsScrubbed} versions, ${s.embeddingsRemoved} embeddings, ${s.usageRowsDeleted} usage rows, ${s.runWorkRowsDeleted} run work rows, ${s.auditEntriesRedacted} audit reasons`,
  );
  printLine(`  scan: clean over ${r.scan.archiveObjectsScanned} archive objects and every note store table`);
  printLine(`  history: ${run.historyDeleted ? 'deleted from Temporal' : 'kept'}; working set and request deleted`);
}
