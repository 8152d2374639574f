import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options of an evaluation tool run from the command line: `--help` (or `-h`) prints its
 * usage and ends it; an unknown option, a missing value or an argument it takes none of ends it with one line naming what was
 * wrong and the usage, exit code 2, instead of a stack trace.
 */
export function toolArgs<T extends Options>(
  options: T,
  usage: string,
  { argv = process.argv.slice(2), positionals = false }: { argv?: readonly string[]; positionals?: boolean } = {},
): ReturnType<typeof parseArgs<{ options: T; allowPositionals: boolean; args: string[] }>> {
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${usage.trim()}\n`);
      process.exit(0);
    }
    return parseArgs({ options, allowPositionals: positionals, args: [...argv] });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage.trim()}\n`);
    process.exit(2);
  }
}
