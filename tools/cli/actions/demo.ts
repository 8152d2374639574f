import { printJson, printLine, warn } from '../../../src/cli/output.ts';
import { formatDemoReport } from '../../demo/print-report.ts';
import { runDemo } from '../../demo/run-demo.ts';

export interface DemoOptions {
  dataDir: string;
  keep?: boolean;
  json?: boolean;
}

/** `nocturne demo` */
export async function demoCommand(opts: DemoOptions): Promise<void> {
  const report = await runDemo({
    dataDir: opts.dataDir,
    log: warn,
    ...(opts.keep ? { linger: waitForInterrupt } : {}),
  });
  if (opts.json) return printJson(report);
  printLine(formatDemoReport(report));
  printLine(
    opts.keep
      ? ''
      : `\nRun \`npm run demo -- --keep\` to keep the Temporal UI (${report.temporalUi}) open for looking around.`,
  );
  const broken = report.tenants.filter((t) => !t.auditChain.ok || t.run.status !== 'completed');
  if (broken.length > 0) process.exitCode = 1;
}

async function waitForInterrupt(uiUrl: string): Promise<void> {
  warn(`\nTemporal UI: ${uiUrl}  (workflows consolidate/…, rollback-note/…) — press Ctrl-C to stop`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
}
