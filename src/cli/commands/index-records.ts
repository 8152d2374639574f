import type { Command } from 'commander';
import type { IndexNotesOptions } from '../actions/index-notes.ts';
import type { IndexRecordsOptions } from '../actions/index-records.ts';
import type { IndexTenantsOptions } from '../actions/index-tenants.ts';
import type { IndexVectorsOptions } from '../actions/index-vectors.ts';

export function registerIndex(program: Command): void {
  const index = program
    .command('index')
    .description('build the projections recall searches (rebuildable from the note store and the archive)');

  index
    .command('notes')
    .description(
      "check a tenant's recall projection (its current, active notes) against the note store and remove expired rows",
    )
    .requiredOption('--tenant <id>', 'tenant whose notes to index')
    .option('--rebuild', "derive the tenant's recall projection again from the note store")
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nExit codes:\n  0  the projection matches the note store\n  1  it differs (rebuild it), or the store failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: IndexNotesOptions) => (await import('../actions/index-notes.ts')).indexNotesCommand(opts));

  index
    .command('vectors')
    .description(
      "give a tenant's committed notes their missing vectors: starts the indexing step again for each run whose step failed or never ran (recall finds such notes by full text meanwhile)",
    )
    .requiredOption('--tenant <id>', 'tenant whose notes to embed')
    .option('--wait', 'wait for the steps to end and report what each embedded')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nThe steps run on the workers (\`nocturne worker\`), through the tenant's embedding cache.\n\nExit codes:\n  0  nothing was missing, or the steps started (with --wait: ended)\n  1  a step failed, or the store or Temporal failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: IndexVectorsOptions) =>
      (await import('../actions/index-vectors.ts')).indexVectorsCommand(opts),
    );

  index
    .command('records')
    .description(
      "index a tenant's raw records (keyword and vector) from the archive: objects not indexed yet or indexed in an older vector form, texts embedded once (cached by hash and model)",
    )
    .requiredOption('--tenant <id>', 'tenant whose archive to index')
    .option(
      '--rebuild',
      "drop the tenant's record index first and index the whole archive again (cached vectors are reused)",
    )
    .option('--from <iso>', 'only records observed at or after this instant')
    .option('--to <iso>', 'only records observed at or before this instant')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nProgress goes to stderr, the summary to stdout.\n\nExit codes:\n  0  indexed (possibly nothing new)\n  1  the archive, the store or the embedder failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: IndexRecordsOptions) =>
      (await import('../actions/index-records.ts')).indexRecordsCommand(opts),
    );

  index
    .command('tenants')
    .description(
      'the active-tenants index the nightly run reads (index/active/date=<d>/tenant=<t>): the writer keeps it; --rebuild lists the archive once and marks every tenant-day found',
    )
    .option(
      '--rebuild',
      'list the whole archive and mark every tenant-day partition (for archives older than the index)',
    )
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nThe nightly run rebuilds the index by itself the first time it finds no coverage marker.\n\nExit codes:\n  0  rebuilt\n  1  the archive failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: IndexTenantsOptions) =>
      (await import('../actions/index-tenants.ts')).indexTenantsCommand(opts),
    );
}
