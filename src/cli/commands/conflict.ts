import { Client, Connection } from '@temporalio/client';
import type { Command } from 'commander';
import { InvalidConflictReportError, parseConflictReport, reportConflict } from '../../client/index.ts';
import { loadConfig } from '../../config.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerConflict(program: Command): void {
  program
    .command('conflict')
    .description(
      "Report a memory conflict to the tenant's monitor (conflicts/<tenant>, started if absent); enough of them start a focused consolidation",
    )
    .requiredOption('--tenant <id>', 'tenant whose notes conflict')
    .requiredOption('--note <id>', 'a conflicting note id (repeat for several)', collect, [])
    .option('--reason <text>', 'what contradicted the note(s)')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      '\nExit codes:\n  0  reported\n  1  the Temporal server failed\n  2  bad usage or configuration',
    )
    .action(async (opts: { tenant: string; note: string[]; reason?: string; json?: boolean }) => {
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
      const connection = await Connection.connect({ address: config.temporal.address });
      try {
        const client = new Client({ connection, namespace: config.temporal.namespace });
        const sent = await reportConflict(client, input, {
          taskQueue: config.temporal.taskQueue,
          threshold: config.triggers.conflictThreshold,
          cooldownSeconds: config.triggers.conflictCooldownSeconds,
        });
        if (opts.json) return printJson({ tenantId: opts.tenant, noteIds: opts.note, ...sent });
        printLine(`conflict reported to ${sent.workflowId} (run ${sent.runId}) for ${opts.note.length} note(s)`);
      } finally {
        await connection.close();
      }
    });
}
