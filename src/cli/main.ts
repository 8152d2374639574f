import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { EXIT, UsageError } from './errors.ts';
import { registerApprove } from './commands/approve.ts';
import { registerArchive } from './commands/archive.ts';
import { registerAudit } from './commands/audit.ts';
import { registerConflict } from './commands/conflict.ts';
import { registerErase } from './commands/erase.ts';
import { registerIndex } from './commands/index-records.ts';
import { registerNotes } from './commands/notes.ts';
import { registerRecall } from './commands/recall.ts';
import { registerRollback } from './commands/rollback.ts';
import { registerRun } from './commands/run.ts';
import { registerSchedule } from './commands/schedule.ts';
import { registerSchema } from './commands/schema.ts';
import { registerServe } from './commands/serve.ts';
import { registerStack } from './commands/stack.ts';
import { registerWorker } from './commands/worker.ts';

/** Adds commands to the program. Registration only names and describes them: each action imports its implementation when it runs. */
export type RegisterCommands = (program: Command) => void;

export interface MainOptions {
  /** Commands from outside the product (the repository's tools), added after its own. */
  extensions?: RegisterCommands[];
}

/** The version of package.json, which every install (and the worker image) carries beside the sources. */
export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version = (pkg as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

export function buildProgram(options: MainOptions = {}): Command {
  const program = new Command('nocturne')
    .description('Sleep-time memory consolidation for AI agents')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of [
    registerStack,
    registerWorker,
    registerRun,
    registerApprove,
    registerArchive,
    registerNotes,
    registerRecall,
    registerServe,
    registerSchedule,
    registerConflict,
    registerRollback,
    registerErase,
    registerAudit,
    registerIndex,
    registerSchema,
    ...(options.extensions ?? []),
  ]) {
    register(program);
  }
  return program;
}

/** Runs the command line and returns the exit code: 0 success, 1 failure, 2 bad usage or input. */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const program = buildProgram(options);
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
