import type { Command } from 'commander';
import type { RunOptions } from '../actions/run.ts';

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
    .action(async (opts: RunOptions) => (await import('../actions/run.ts')).runCommand(opts));
}
