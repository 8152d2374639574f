import type { Command } from 'commander';
import type { DecisionOptions } from '../actions/approve.ts';

const EXIT_CODES = `\nExit codes:\n  0  decided\n  1  the run refused (not awaiting approval, already decided) or is unknown\n  2  bad usage or configuration`;

/** `nocturne approve|reject <workflowId>`: the decision a staged run waits for, sent as its Update. */
export function registerApprove(program: Command): void {
  program
    .command('approve')
    .description('approve a staged consolidation run: its staged notes become active')
    .argument('<workflowId>', "the run's workflow id (consolidate/<tenant>/…)")
    .option('--operator <name>', 'who decides (kept in the audit log)', defaultOperator())
    .option('--reason <text>', 'why (kept in the audit log)')
    .addHelpText('after', EXIT_CODES)
    .action(async (workflowId: string, opts: DecisionOptions) =>
      (await import('../actions/approve.ts')).decideCommand('approve', workflowId, opts),
    );
  program
    .command('reject')
    .description('reject a staged consolidation run: its staged notes are retired, its held changes dropped')
    .argument('<workflowId>', "the run's workflow id (consolidate/<tenant>/…)")
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .option('--operator <name>', 'who decides (kept in the audit log)', defaultOperator())
    .addHelpText('after', EXIT_CODES)
    .action(async (workflowId: string, opts: DecisionOptions) =>
      (await import('../actions/approve.ts')).decideCommand('reject', workflowId, opts),
    );
}

function defaultOperator(): string {
  return process.env['NOCTURNE_OPERATOR'] ?? process.env['USER'] ?? 'operator';
}
