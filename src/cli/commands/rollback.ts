import type { Command } from 'commander';
import type { RollbackNoteOptions, RollbackRunOptions } from '../actions/rollback.ts';

export function registerRollback(program: Command): void {
  const rollback = program
    .command('rollback')
    .description('roll back a note or a whole run (writes new versions; history is kept)');

  rollback
    .command('note')
    .description(
      'write a new version of a note equal to an earlier one (or retire it), settling its successor and restoring what it superseded',
    )
    .requiredOption('--tenant <id>', 'tenant of the note')
    .requiredOption('--note <id>', 'note id')
    .option('--to-version <n>', 'version to return to (default: the one before; 0 or a version-1 note: retire)')
    .option('--action <action>', 'rollback (default), retire or quarantine')
    .option('--successor <choice>', "a revived note's successor: retire (default) or keep")
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .requiredOption('--operator <name>', 'who (the audit actor)')
    .option('--wait', 'wait for the result')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: RollbackNoteOptions) => (await import('../actions/rollback.ts')).rollbackNoteCommand(opts));

  rollback
    .command('run')
    .description(
      'roll back every note version a consolidation run changed (notes it created are retired); refused while a consolidation of the tenant is running',
    )
    .requiredOption('--run <id>', 'run id, as in the run report (consolidate/<tenant>/…)')
    .option('--tenant <id>', 'tenant of the run (derived from the run id when it names one)')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .requiredOption('--operator <name>', 'who (the audit actor)')
    .option('--wait', 'wait for the result')
    .option('--json', 'one JSON document on stdout')
    .action(async (opts: RollbackRunOptions) => (await import('../actions/rollback.ts')).rollbackRunCommand(opts));
}
