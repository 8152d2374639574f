import type { Command } from 'commander';
import { NOTE_STATUSES } from '../../contracts/note.ts';
import type { FindOptions } from '../actions/notes-find.ts';
import type { ListOptions, ShowOptions } from '../actions/notes.ts';

export function registerNotes(program: Command): void {
  const notes = program
    .command('notes')
    .description('read memory notes from the note store (DATABASE_URL, or the embedded PGlite store)');

  notes
    .command('list')
    .description("list a tenant's notes at their current version, in note id order")
    .requiredOption('--tenant <id>', 'tenant whose notes to list')
    .option('--status <status>', `only notes in this status: ${NOTE_STATUSES.join(', ')}`)
    .option('--limit <n>', 'at most this many notes (1-1000)', '50')
    .option('--cursor <noteId>', 'continue after this note id (printed as the next cursor of the previous page)')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nExit codes:\n  0  listed (possibly none)\n  1  the store failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: ListOptions) => (await import('../actions/notes.ts')).listNotesCommand(opts));

  notes
    .command('find')
    .description('find notes by words of their claim, in every status (the bad note behind an answer)')
    .requiredOption('--tenant <id>', 'tenant whose notes to search')
    .requiredOption('--text <words>', 'text the claim contains (case-insensitive)')
    .option('--limit <n>', 'at most this many notes (1-1000)', '20')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nExit codes:\n  0  searched (possibly nothing found)\n  1  the store failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: FindOptions) => (await import('../actions/notes-find.ts')).findNotesCommand(opts));

  notes
    .command('show')
    .description('show one note: its current version, or with --history every version as a diff')
    .argument('<noteId>', 'the note id')
    .requiredOption('--tenant <id>', 'tenant the note belongs to')
    .option(
      '--history',
      'every version as a diff against the one before (changed fields only), with evidence refs and audit entries',
    )
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `\nExit codes:\n  0  shown\n  1  no such note for this tenant, or the store failed\n  2  bad usage or configuration`,
    )
    .action(async (noteId: string, opts: ShowOptions) =>
      (await import('../actions/notes.ts')).showNoteCommand(noteId, opts),
    );
}
