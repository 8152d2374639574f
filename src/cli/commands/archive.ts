import type { Command } from 'commander';
import type { PutOptions, ScanOptions } from '../actions/archive.ts';

export function registerArchive(program: Command): void {
  const archive = program
    .command('archive')
    .description(
      'write raw records to the archive and inspect it (NOCTURNE_ARCHIVE_URI: s3://bucket/prefix or file://dir)',
    );

  archive
    .command('put')
    .description('archive the records of JSONL files (one raw record per line; .gz accepted) for one tenant')
    .argument(
      '<files...>',
      'JSONL file of raw records (one JSON object per line; see docs/ARCHITECTURE.md); recordedAt is stamped where absent',
    )
    .requiredOption('--tenant <id>', 'tenant the records belong to; records of any other tenant are rejected')
    .option('--producer <name>', 'producer name in object keys (default: NOCTURNE_PRODUCER or "nocturne")')
    .option(
      '--max-input-mb <n>',
      'refuse the upload, before writing anything, if its files hold more (decompressed)',
      '1024',
    )
    .option('--max-rejections <n>', 'rejected lines listed with their reasons; the rest are counted by reason', '100')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `
Re-sending the same file writes nothing new: object keys derive from the batch content,
and objects that exist are reported as "already present". Lines must be UTF-8 JSON; a
record id may appear once in an upload (across all its files), later copies are rejected.
Ids are not checked against earlier uploads.

Exit codes:
  0  every line was archived (or was already present)
  1  some lines were rejected (listed with line numbers and reasons); the valid ones were archived
  2  bad usage, a file cannot be read, or the upload is over --max-input-mb`,
    )
    .action(async (files: string[], opts: PutOptions) =>
      (await import('../actions/archive.ts')).putRecords(files, opts),
    );

  archive
    .command('scan')
    .description("summarize a tenant's archive: objects, records, counts by kind and tag, problems")
    .requiredOption('--tenant <id>', 'tenant to scan')
    .option(
      '--verify',
      'also read every object through the validating reader and report quarantined lines (cost follows archive size)',
    )
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `
Without --verify only manifests are read (cheap). Quarantined lines are malformed records the
reader skips with a reason; they are reported, not failures.

Exit codes:
  0  the archive is consistent (quarantined lines may exist)
  1  problems: corrupt objects, missing or invalid manifests, record counts that disagree
  2  bad usage or configuration`,
    )
    .action(async (opts: ScanOptions) => (await import('../actions/archive.ts')).scanArchive(opts));
}
