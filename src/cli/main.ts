import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { EXIT, UsageError } from './errors.ts';
import { registerArchive } from './commands/archive.ts';
import { registerBench } from './commands/bench.ts';
import { registerConflict } from './commands/conflict.ts';
import { registerDemo } from './commands/demo.ts';
import { registerErase } from './commands/erase.ts';
import { registerEval } from './commands/eval.ts';
import { registerNotes } from './commands/notes.ts';
import { registerRecall } from './commands/recall.ts';
import { registerRollback } from './commands/rollback.ts';
import { registerRun } from './commands/run.ts';
import { registerSchedule } from './commands/schedule.ts';
import { registerServe } from './commands/serve.ts';
import { registerSimulate } from './commands/simulate.ts';
import { registerStack } from './commands/stack.ts';
import { registerWorker } from './commands/worker.ts';

export function buildProgram(): Command {
  const program = new Command('nocturne')
    .description('Sleep-time memory consolidation for AI agents')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of [
    registerDemo,
    registerStack,
    registerWorker,
    registerRun,
    registerArchive,
    registerNotes,
    registerRecall,
    registerServe,
    registerBench,
    registerSchedule,
    registerConflict,
    registerRollback,
    registerErase,
    registerEval,
    registerSimulate,
  ]) {
    register(program);
  }
  return program;
}

/** Runs the command line and returns the exit code: 0 success, 1 failure, 2 bad usage or input. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // commander already printed its message; help and version are successes.
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help'
    ) {
      return EXIT.ok;
    }
    return EXIT.usage;
  }
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`nocturne: ${error.message}\n`);
    return EXIT.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`nocturne: ${message}\n`);
  if (process.env['NOCTURNE_DEBUG'] && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return EXIT.failure;
}
