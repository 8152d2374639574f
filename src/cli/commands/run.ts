import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Command } from 'commander';
import type { ConsolidateResult } from '../../../workflows/consolidate-tenant.ts';
import { progressQuery } from '../../../workflows/consolidate-messages.ts';
import { loadConfig } from '../../config.ts';
import { ConsolidateInput, describeInputError } from '../../contracts/workflow-inputs.ts';
import { consolidationId, utcDay } from '../../contracts/workflow-ids.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, progress } from '../output.ts';

interface RunOptions {
  tenant: string;
  maxEpisodes?: string;
  maxChanges?: string;
  maxTokens?: string;
  deadline?: string;
  mode: string;
  seed?: string;
  wait?: boolean;
  json?: boolean;
}

const int = (v: string | undefined) => (v === undefined ? undefined : Number(v));

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('start a consolidation run for one tenant (trigger: manual)')
    .requiredOption('--tenant <id>', 'tenant to consolidate')
    .option('--max-episodes <n>', 'budget: episodes replayed at most')
    .option('--max-changes <n>', 'budget: note changes at most')
    .option('--max-tokens <n>', 'budget: LLM tokens at most')
    .option('--deadline <seconds>', 'budget: wall-clock seconds at most')
    .option('--mode <mode>', 'active, or staged (wait for approve/reject)', 'active')
    .option('--seed <n>', 'sampling seed (same seed, same archive: same sample)')
    .option('--wait', 'wait for the result, showing progress on stderr')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: RunOptions) => {
      const input = parseRunInput(opts);
      const config = loadConfig();
      const connection = await Connection.connect({ address: config.temporal.address });
      try {
        const client = new Client({ connection, namespace: config.temporal.namespace });
        // The per-day id is shared with scheduled and conflict runs: Temporal refuses a second
        // run of one tenant under it while the first is running.
        const workflowId = consolidationId(input.tenantId, utcDay(Date.now()));
        const handle = await client.workflow
          .start('consolidateTenantWorkflow', { taskQueue: config.temporal.taskQueue, workflowId, args: [input] })
          .catch((error: unknown) => {
            if (error instanceof WorkflowExecutionAlreadyStartedError)
              throw new Error(`a consolidation of ${input.tenantId} is already running (${workflowId})`);
            throw error;
          });
        if (!opts.wait) {
          return opts.json
            ? printJson({ workflowId, runId: handle.firstExecutionRunId })
            : printLine(`started ${workflowId}`);
        }
        const bar = progress(`run ${input.tenantId}`);
        const timer = setInterval(() => {
          handle.query(progressQuery).then(
            (p) => bar.update(p.batch, p.batches),
            () => undefined,
          );
        }, 1000);
        try {
          const result = (await handle.result()) as ConsolidateResult;
          bar.done(result.status);
          if (opts.json) return printJson({ workflowId, ...result });
          printLine(`${workflowId}: ${result.status}`);
          printLine(`  counts ${JSON.stringify(result.counts)}`);
          printLine(`  spent ${JSON.stringify(result.spent)} of ${JSON.stringify(result.budget)}`);
          for (const c of result.changedVersions)
            printLine(`  ${c.noteId} v${c.fromVersion ?? '-'} -> v${c.toVersion}`);
        } finally {
          clearInterval(timer);
        }
      } finally {
        await connection.close();
      }
    });
}

function parseRunInput(opts: RunOptions): ConsolidateInput {
  const budget = Object.fromEntries(
    Object.entries({
      maxEpisodes: int(opts.maxEpisodes),
      maxNoteChanges: int(opts.maxChanges),
      maxLlmTokens: int(opts.maxTokens),
      deadlineSeconds: int(opts.deadline),
    }).filter(([, v]) => v !== undefined),
  );
  const input = {
    tenantId: opts.tenant,
    trigger: 'manual',
    mode: opts.mode,
    budget,
    ...(opts.seed !== undefined ? { seed: Number(opts.seed) } : {}),
  };
  const parsed = ConsolidateInput.safeParse(input);
  if (!parsed.success) throw new UsageError(describeInputError(parsed.error));
  return input as ConsolidateInput;
}
