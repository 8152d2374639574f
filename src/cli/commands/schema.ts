import type { Command } from 'commander';
import type { SchemaRevertOptions, SchemaStatusOptions } from '../actions/schema.ts';

export function registerSchema(program: Command): void {
  const schema = program
    .command('schema')
    .description("the note store's migrations (applied at start-up): what is applied, and going back a release");
  schema
    .command('status')
    .description('the migrations applied to the store and pending, and how many of the newest can be reverted')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: SchemaStatusOptions) => (await import('../actions/schema.ts')).schemaStatusCommand(opts));
  schema
    .command('revert')
    .description(
      'revert the newest applied migrations through their down sections, in one transaction, before starting an earlier release (stop this release first: it migrates up again at start-up)',
    )
    .requiredOption('--count <n>', 'how many of the newest applied migrations to revert (see `schema status`)')
    .option('--yes', 'revert them; without it, list what would be reverted and the data its down sections drop')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: SchemaRevertOptions) => (await import('../actions/schema.ts')).schemaRevertCommand(opts));
}
