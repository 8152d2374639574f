import { loadConfig } from '../../config.ts';
import { TenantId } from '../../contracts/ids.ts';
import { catchUpNoteVectors, type VectorCatchUp } from '../../consolidation/catch-up-vectors.ts';
import { openRecallEmbedder, withDb, withTemporalClient } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, progress } from '../output.ts';

export interface IndexVectorsOptions {
  tenant: string;
  wait?: boolean;
  json?: boolean;
}

interface StepReport {
  runId: string;
  workflowId: string;
  pending: number;
  state: VectorCatchUp['state'];
  embedded?: number;
  error?: string;
}

/**
 * `nocturne index vectors`: starts the indexing step again for each run that left claims without
 * a vector, on the workers; with --wait, follows the steps to their end.
 */
export async function indexVectorsCommand(opts: IndexVectorsOptions): Promise<void> {
  const parsed = TenantId.safeParse(opts.tenant);
  if (!parsed.success) throw new UsageError(`--tenant: invalid value ${JSON.stringify(opts.tenant)}`);
  const tenantId = parsed.data;
  const config = loadConfig();
  // The model the workers embed with: a vector another model produced is missing too.
  const model = (await openRecallEmbedder(config)).name;
  const reports = await withDb(config, (db) =>
    withTemporalClient(config, async (client) => {
      const ports = { db, client, taskQueue: config.temporal.taskQueue, model };
      const steps = await catchUpNoteVectors(ports, tenantId);
      return opts.wait ? followSteps(tenantId, steps) : steps.map(describe);
    }),
  );
  if (reports.some((r) => r.error !== undefined)) process.exitCode = 1;
  if (opts.json) return printJson({ tenantId, steps: reports });
  if (reports.length === 0) return printLine(`tenant ${tenantId}: every committed claim has its vector`);
  for (const r of reports) printLine(line(r));
  if (!opts.wait) printLine('follow them in the Temporal UI, or run again with --wait');
}

async function followSteps(tenantId: string, steps: VectorCatchUp[]): Promise<StepReport[]> {
  if (steps.length === 0) return [];
  const bar = progress(`vectors ${tenantId}`);
  const reports: StepReport[] = [];
  for (const step of steps) {
    bar.update(reports.length, steps.length);
    try {
      const result = await step.handle.result();
      reports.push({ ...describe(step), embedded: result.embedded });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      reports.push({ ...describe(step), error: cause instanceof Error ? cause.message : String(error) });
    }
  }
  bar.done(`${reports.length} step(s) ended`);
  return reports;
}

const describe = (s: VectorCatchUp): StepReport => ({
  runId: s.runId,
  workflowId: s.workflowId,
  pending: s.pending,
  state: s.state,
});

function line(r: StepReport): string {
  const what = `${r.workflowId}: ${r.pending} claim(s) without a vector of the current model (run ${r.runId})`;
  if (r.error !== undefined) return `${what}: failed: ${r.error}`;
  if (r.embedded !== undefined) return `${what}: ${r.embedded} embedded`;
  return `${what}: ${r.state === 'running' ? 'already running' : 'started'}`;
}
