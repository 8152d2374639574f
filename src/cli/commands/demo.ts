import type { Command } from 'commander';
import { formatDemoReport } from '../../demo/print-report.ts';
import { runDemo } from '../../demo/run-demo.ts';
import { printJson, printLine, warn } from '../output.ts';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'the main job on the embedded default: archive a bundled sample, consolidate it on a Temporal dev server, show the notes, roll one back',
    )
    .option(
      '--data-dir <dir>',
      'where the demo keeps its archive, database and server state (wiped at start)',
      'var/demo',
    )
    .option('--keep', 'keep the Temporal dev server (and its UI) running until Ctrl-C')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: { dataDir: string; keep?: boolean; json?: boolean }) => {
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
    });
}

async function waitForInterrupt(uiUrl: string): Promise<void> {
  warn(`\nTemporal UI: ${uiUrl}  (workflows consolidate/…, rollback-note/…) — press Ctrl-C to stop`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
}
