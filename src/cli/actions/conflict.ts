import { InvalidConflictReportError, parseConflictReport, reportConflict } from '../../conflicts/report-conflict.ts';
import { loadConfig } from '../../config.ts';
import { withTemporalClient } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export interface ConflictOptions {
  tenant: string;
  note: string[];
  reason?: string;
  json?: boolean;
}

/** `nocturne conflict` */
export async function conflictCommand(opts: ConflictOptions): Promise<void> {
  const config = loadConfig();
  const input = {
    tenantId: opts.tenant,
    noteIds: opts.note,
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
  };
  try {
    parseConflictReport(input);
  } catch (error) {
    throw error instanceof InvalidConflictReportError ? new UsageError(error.message) : error;
  }
  await withTemporalClient(config, async (client) => {
    const sent = await reportConflict(client, input, {
      taskQueue: config.temporal.taskQueue,
      threshold: config.triggers.conflictThreshold,
      cooldownSeconds: config.triggers.conflictCooldownSeconds,
    });
    if (opts.json) return printJson({ tenantId: opts.tenant, noteIds: opts.note, ...sent });
    printLine(`conflict reported to ${sent.workflowId} (run ${sent.runId}) for ${opts.note.length} note(s)`);
  });
}
