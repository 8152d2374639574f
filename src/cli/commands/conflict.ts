import type { Command } from 'commander';
import type { ConflictOptions } from '../actions/conflict.ts';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerConflict(program: Command): void {
  program
    .command('conflict')
    .description(
      "report a memory conflict to the tenant's monitor (conflicts/<tenant>, started if absent); enough of them start a focused consolidation",
    )
    .requiredOption('--tenant <id>', 'tenant whose notes conflict')
    .requiredOption('--note <id>', 'a conflicting note id (repeat for several)', collect, [])
    .option('--reason <text>', 'what contradicted the note(s)')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      '\nExit codes:\n  0  reported\n  1  the Temporal server failed\n  2  bad usage or configuration',
    )
    .action(async (opts: ConflictOptions) => (await import('../actions/conflict.ts')).conflictCommand(opts));
}
