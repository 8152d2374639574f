import type { Command } from 'commander';
import { UsageError } from '../../src/cli/errors.ts';
import { positiveInt } from './args.ts';
import type { SimulateOptions, UsedNotesMode } from './actions/simulate.ts';

const usedNotesMode = (value: string): UsedNotesMode => {
  if (value !== 'recalled' && value !== 'applied')
    throw new UsageError(`--memory-used: expected recalled or applied, got ${JSON.stringify(value)}`);
  return value;
};

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description(
      'closed-loop check: a seeded agent with known traps, played with no memory, a bounded history and Nocturne; error recurrence and accidental retirement of correct notes',
    )
    .option('--seeds <n>', 'seeds 1..n, each a world of its own', positiveInt('--seeds'), 5)
    .option('--days <n>', 'simulated days (a nightly consolidation after each)', positiveInt('--days'), 10)
    .option('--tasks-per-day <n>', 'tasks the agent does each day', positiveInt('--tasks-per-day'), 12)
    .option('--history <n>', 'raw records the bounded history keeps', positiveInt('--history'), 50)
    .option('--k <n>', 'notes Nocturne recalls before each task', positiveInt('--k'), 5)
    .option(
      '--memory-used <mode>',
      'notes a memory_used record lists: recalled (every note recall returned) or applied (only those acted on)',
      usedNotesMode,
      'recalled',
    )
    .option('--keep', "keep the simulation's note schema (to inspect notes) instead of dropping it")
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: SimulateOptions) => (await import('./actions/simulate.ts')).simulateCommand(opts));
}
