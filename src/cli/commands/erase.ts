import type { Command } from 'commander';
import type { EraseOptions } from '../actions/erase.ts';

export function registerErase(program: Command): void {
  program
    .command('erase')
    .description(
      "erase one user's data: archive records, notes built from them, versions, embeddings, usage rows; ends with a scan that must find nothing. The user id is stored in the note store under a random handle (Temporal sees only the handle); waits for the proof report, then deletes the erasure's Temporal history",
    )
    .requiredOption('--tenant <id>', 'tenant of the user')
    .requiredOption('--user <id>', 'user id to erase')
    .option('--detach', 'return once started (the erasure history then stays in Temporal until its retention ends)')
    .option('--wait', 'wait for the proof report (the default; kept for scripts)')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: EraseOptions) => (await import('../actions/erase.ts')).eraseCommand(opts));
}
