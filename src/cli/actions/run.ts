import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import type { ConsolidateResult } from '../../../workflows/consolidate-tenant.ts';
import { progressQuery } from '../../../workflows/consolidate-messages.ts';
import { loadConfig } from '../../config.ts';
import { ConsolidateInput, describeInputError } from '../../contracts/workflow-inputs.ts';
import { consolidationId, consolidationSummary, utcDay } from '../../contracts/workflow-ids.ts';
import { withTemporalClient } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { runningConsolidation } from '../running-consolidation.ts';
import { printJson, printLine, progress } from '../output.ts';

export interface RunOptions {
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

/** `nocturne run` */
export async function runCommand(opts: RunOptions): Promise<void> {
  const input = parseRunInput(opts);
  const config = loadConfig();
  await withTemporalClient(config, async (client) => {
    // The per-day id is shared with scheduled and conflict runs: Temporal refuses a second
    // run of one tenant under it while the first is running.
    const workflowId = consolidationId(input.tenantId, utcDay(Date.now()));
    const running = await runningConsolidation(client, input.tenantId);
    if (running) throw new Error(`a consolidation of ${input.tenantId} is already running (${running})`);
    const handle = await client.workflow
      .start('consolidateTenantWorkflow', {
        taskQueue: config.temporal.taskQueue,
        workflowId,
        args: [input],
        staticSummary: consolidationSummary(input.tenantId, 'manual'),
      })
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
    await waitAndPrint(handle, workflowId, input.tenantId, opts.json ?? false);
  });
}

/** Waits for the run's result, showing its batch progress on stderr meanwhile. */
async function waitAndPrint(handle: WorkflowHandle, workflowId: string, tenantId: string, json: boolean) {
  const bar = progress(`run ${tenantId}`);
  const timer = setInterval(() => {
    handle.query(progressQuery).then(
      (p) => bar.update(p.batch, p.batches),
      () => undefined,
    );
  }, 1000);
  try {
    const result = (await handle.result()) as ConsolidateResult;
    bar.done(result.status);
    if (json) return printJson({ workflowId, ...result });
    printLine(`${workflowId}: ${result.status}`);
    printLine(`  counts ${JSON.stringify(result.counts)}`);
    printLine(`  spent ${JSON.stringify(result.spent)} of ${JSON.stringify(result.budget)}`);
    for (const c of result.changedVersions) printLine(`  ${c.noteId} v${c.fromVersion ?? '-'} -> v${c.toVersion}`);
  } finally {
    clearInterval(timer);
  }
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
