import { printJson, printLine } from '../../../src/cli/output.ts';
import { loadConfig } from '../../../src/config.ts';
import { runNightlyBench } from '../../bench/nightly-bench.ts';
import { requireRealStack } from '../args.ts';

export interface NightlyBenchOptions {
  tenants: number[];
  records: number;
  concurrency: number;
  json?: boolean;
}

/** `nocturne bench nightly` */
export async function nightlyBenchCommand(opts: NightlyBenchOptions): Promise<void> {
  const config = loadConfig();
  requireRealStack(config, 'bench nightly');
  const r = await runNightlyBench({
    env: process.env,
    tenants: opts.tenants,
    records: opts.records,
    concurrency: opts.concurrency,
    onProgress: (l) => process.stderr.write(`${l}\n`),
  });
  if (opts.json) return printJson(r);
  for (const m of r.runs) {
    printLine(
      `${m.tenants} tenants (${m.records} records): ${m.wallSeconds}s, ${m.secondsPerTenant}s per tenant, ${m.completed} completed, ${m.failed} not`,
    );
    printLine(
      `     orchestration ${(m.orchestrationShare * 100).toFixed(1)}% of wall time (target <= ${r.targets.orchestrationShare * 100}%), ${m.executions} executions, at most ${m.maxEventsPerExecution} events each (target <= ${r.targets.eventsPerExecution})`,
    );
    const top = Object.entries(m.activitySecondsByType).slice(0, 4);
    printLine(`     activity time: ${top.map(([type, sec]) => `${type} ${sec}s`).join(', ')}`);
  }
  printLine(
    `cost per tenant, largest / smallest: ${r.costPerTenantRatio}x (target <= ${r.targets.costPerTenantRatio}); targets ${r.targets.met ? 'met' : 'missed'}`,
  );
}
