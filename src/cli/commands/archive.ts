import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { openArchive } from '../../archive/open.ts';
import { ingestJsonlFile } from '../../archive/ingest.ts';
import type { IngestResult } from '../../archive/ingest.ts';
import { scanTenant } from '../../archive/scan.ts';
import type { TenantScan } from '../../archive/scan.ts';
import type { ArchiveStore } from '../../archive/store.ts';
import { loadConfig } from '../../config.ts';
import { TenantId } from '../../contracts/ids.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, printLine, progress, table } from '../output.ts';

const PRODUCER = /^[a-z0-9][a-z0-9_-]{0,47}$/;
/** Human output lists this many rejected or quarantined lines; --json lists them all. */
const HUMAN_LIST_LIMIT = 20;

export function registerArchive(program: Command): void {
  const archive = program
    .command('archive')
    .description(
      'write raw records to the archive and inspect it (NOCTURNE_ARCHIVE_URI: s3://bucket/prefix or file://dir)',
    );

  archive
    .command('put')
    .description('archive the records of a JSONL file (one raw record per line; .gz accepted) for one tenant')
    .argument('<file>', 'JSONL file of raw records (design §3); recordedAt is stamped where absent')
    .requiredOption('--tenant <id>', 'tenant the records belong to; records of any other tenant are rejected')
    .option('--producer <name>', 'producer name in object keys (default: NOCTURNE_PRODUCER or "nocturne")')
    .option('--json', 'print one JSON document instead of text')
    .addHelpText(
      'after',
      `
Re-sending the same file writes nothing new: object keys derive from the batch content,
and objects that exist are reported as "already present".

Exit codes:
  0  every line was archived (or was already present)
  1  some lines were rejected (listed with line numbers and reasons); the valid ones were archived
  2  bad usage, or the file cannot be read`,
    )
    .action(async (file: string, opts: { tenant: string; producer?: string; json?: boolean }) => {
      const config = loadConfig();
      const tenantId = parseTenant(opts.tenant);
      const producer = opts.producer ?? config.archive.producer;
      if (!PRODUCER.test(producer))
        throw new UsageError(`--producer: expected lowercase letters, digits, _ or -, got ${JSON.stringify(producer)}`);
      await assertReadableFile(file);
      await withStore(config.archive, async (store) => {
        const bar = opts.json ? undefined : progress(`archiving ${file}`);
        const result = await ingestJsonlFile(store, {
          tenantId,
          producer,
          path: file,
          onProgress: (n) => bar?.update(n),
        });
        bar?.done();
        if (opts.json) printJson({ tenantId, location: store.location, file, ...result });
        else printPut(result, store.location, tenantId);
        if (result.rejected.length > 0) process.exitCode = EXIT.failure;
      });
    });

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
    .action(async (opts: { tenant: string; verify?: boolean; json?: boolean }) => {
      const config = loadConfig();
      const tenantId = parseTenant(opts.tenant);
      await withStore(config.archive, async (store) => {
        const bar = opts.verify && !opts.json ? progress('verifying objects') : undefined;
        const scan = await scanTenant(store, tenantId, {
          verify: opts.verify ?? false,
          onObject: (d, t) => bar?.update(d, t),
        });
        bar?.done();
        if (opts.json) printJson(scan);
        else printScan(scan);
        if (scan.problems.length > 0) process.exitCode = EXIT.failure;
      });
    });
}

function parseTenant(value: string): string {
  const parsed = TenantId.safeParse(value);
  if (!parsed.success) throw new UsageError(`--tenant: ${parsed.error.issues[0]?.message ?? 'invalid tenant id'}`);
  return parsed.data;
}

async function assertReadableFile(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new UsageError(`${file}: no such file`);
}

async function withStore(
  archive: Parameters<typeof openArchive>[0],
  work: (store: ArchiveStore) => Promise<void>,
): Promise<void> {
  const store = openArchive(archive);
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

function printPut(r: IngestResult, location: string, tenantId: string): void {
  printLine(`${r.accepted} records archived for tenant ${tenantId} in ${location} (${r.lines} lines read)`);
  printLine(`objects: ${r.written} written, ${r.alreadyPresent} already present`);
  if (r.objects.length > 0) {
    printLine(
      table(
        ['status', 'records', 'object'],
        r.objects.map((o) => [
          o.repairedManifest ? 'present (manifest repaired)' : o.status,
          o.recordCount,
          o.objectKey,
        ]),
      ),
    );
  }
  if (r.rejected.length === 0) return;
  printLine(`\n${r.rejected.length} lines rejected:`);
  for (const x of r.rejected.slice(0, HUMAN_LIST_LIMIT)) printLine(`  line ${x.line}: ${x.reason}`);
  if (r.rejected.length > HUMAN_LIST_LIMIT)
    printLine(`  … ${r.rejected.length - HUMAN_LIST_LIMIT} more (use --json for all)`);
}

function printScan(s: TenantScan): void {
  printLine(`tenant ${s.tenantId} in ${s.location}`);
  printLine(
    `${s.objects} objects, ${s.records} records (${s.priorityRecords} priority), ${s.userIds} users, ${mb(s.bytes.compressed)} compressed / ${mb(s.bytes.raw)} raw`,
  );
  if (s.observedAt) printLine(`observed ${s.observedAt.min} … ${s.observedAt.max}`);
  const sorted = (m: Record<string, number>) => Object.entries(m).sort((a, b) => b[1] - a[1]);
  printLine(`\n${table(['kind', 'records'], sorted(s.kinds))}`);
  if (Object.keys(s.tags).length > 0) printLine(`\n${table(['tag', 'records'], sorted(s.tags))}`);
  if (s.verified) {
    const v = s.verified;
    printLine(`\nverified ${v.objects} objects: ${v.records} valid records, ${v.quarantined} quarantined lines`);
    if (v.quarantined > 0) printLine(table(['reason', 'lines'], sorted(v.byReason as Record<string, number>)));
    if (v.lines.length > 0)
      printLine(
        `\n${table(
          ['object', 'line', 'reason', 'detail'],
          v.lines.slice(0, HUMAN_LIST_LIMIT).map((q) => [q.objectKey, q.line, q.reason, q.detail]),
        )}`,
      );
  }
  if (s.problems.length > 0)
    printLine(
      `\n${s.problems.length} problems:\n${table(
        ['problem', 'object', 'detail'],
        s.problems.map((p) => [p.problem, p.objectKey, p.detail]),
      )}`,
    );
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}
