import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options of an evaluation tool run from the command line: `--help` (or `-h`) prints its
 * usage and ends it; an unknown option, a missing value or an argument it takes none of ends it
 * through {@link usageError}, instead of a stack trace.
 */
export function toolArgs<T extends Options>(
  options: T,
  usage: string,
  { argv = process.argv.slice(2), positionals = false }: { argv?: readonly string[]; positionals?: boolean } = {},
): ReturnType<typeof parseArgs<{ options: T; allowPositionals: boolean; args: string[] }>> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ options, allowPositionals: positionals, args: [...argv] });
  } catch (error) {
    return usageError((error as Error).message, usage);
  }
}

/** Ends the tool with one line naming what was wrong, then its usage, exit code 2. */
export function usageError(message: string, usage: string): never {
  process.stderr.write(`${message}\n\n${usage.trim()}\n`);
  process.exit(2);
}
