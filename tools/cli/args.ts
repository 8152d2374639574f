import type { Config } from '../../src/config.ts';
import { UsageError } from '../../src/cli/errors.ts';

/** A commander option parser for a positive integer, naming the option in its error. */
export const positiveInt =
  (name: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0)
      throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(value)}`);
    return n;
  };

/** A comma-separated list of positive integers, e.g. `100,1000`, naming the option in its error. */
export const positiveIntList =
  (name: string) =>
  (value: string): number[] =>
    value.split(',').map((part) => positiveInt(name)(part.trim()));

/** Commands that run the whole pipeline (benchmarks, evaluation, simulation) need the real stack, not the embedded default. */
export function requireRealStack(config: Config, command: string): void {
  if (config.database.kind !== 'postgres' || !config.archive.uri.startsWith('s3://')) {
    throw new UsageError(
      `${command} runs on the real stack: eval "$(nocturne stack up)" first (DATABASE_URL and an s3:// archive)`,
    );
  }
}
