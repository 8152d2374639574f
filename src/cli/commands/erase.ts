import type { Command } from 'commander';
import type { EraseOptions } from '../actions/erase.ts';

export function registerErase(program: Command): void {
  program
    .command('erase')
    .description(
      "erase one user's data: archive records, notes built from them, versions, embeddings, usage rows; ends with a scan that must find nothing",
    )
    .requiredOption('--tenant <id>', 'tenant of the user')
    .requiredOption('--user <id>', 'user id to erase')
    .option('--wait', 'wait for the proof report')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: EraseOptions) => (await import('../actions/erase.ts')).eraseCommand(opts));
}
