import { stat } from 'node:fs/promises';
import { DEFAULT_MAX_INPUT_BYTES, IngestInputTooLargeError, ingestJsonlFiles } from '../../archive/ingest.ts';
import type { IngestResult } from '../../archive/ingest.ts';
import { scanTenant } from '../../archive/scan.ts';
import type { TenantScan } from '../../archive/scan.ts';
import { loadConfig } from '../../config.ts';
import { TenantId } from '../../contracts/ids.ts';
import { withArchive } from '../../runtime.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, printLine, progress, table } from '../output.ts';

const PRODUCER = /^[a-z0-9][a-z0-9_-]{0,47}$/;
/** Human output lists this many rejected or quarantined lines; --json lists all it kept. */
const HUMAN_LIST_LIMIT = 20;
const MIB = 1024 * 1024;

export interface PutOptions {
  tenant: string;
  producer?: string;
  /** Refuse an upload larger than this once decompressed, in MiB. */
  maxInputMb?: string;
  /** Rejected lines listed with reasons (the rest are counted). */
  maxRejections?: string;
  json?: boolean;
}

export interface ScanOptions {
  tenant: string;
  verify?: boolean;
  json?: boolean;
}

/** `nocturne archive put` */
export async function putRecords(files: string[], opts: PutOptions): Promise<void> {
  const config = loadConfig();
  const tenantId = parseTenant(opts.tenant);
  const producer = opts.producer ?? config.archive.producer;
  if (!PRODUCER.test(producer))
    throw new UsageError(`--producer: expected lowercase letters, digits, _ or -, got ${JSON.stringify(producer)}`);
  const maxInputBytes = positive('--max-input-mb', opts.maxInputMb, DEFAULT_MAX_INPUT_BYTES / MIB) * MIB;
  const maxRejectionDetails = positive('--max-rejections', opts.maxRejections, 100);
  for (const file of files) await assertReadableFile(file);
  await withArchive(config, async (store) => {
    const bar = opts.json ? undefined : progress(`archiving ${files.join(', ')}`);
    const result = await ingestJsonlFiles(store, {
      tenantId,
      producer,
      paths: files,
      maxInputBytes,
      maxRejectionDetails,
      onProgress: (n) => bar?.update(n),
    }).catch((error: unknown) => {
      bar?.done();
      if (error instanceof IngestInputTooLargeError) throw new UsageError(`${error.message} (raise --max-input-mb)`);
      throw error;
    });
    bar?.done();
    if (opts.json) printJson({ tenantId, location: store.location, files, ...result });
    else printPut(result, store.location, tenantId);
    if (result.rejectedCount > 0) process.exitCode = EXIT.failure;
  });
}

function positive(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`${flag}: expected a whole number, got ${JSON.stringify(value)}`);
  return n;
}

/** `nocturne archive scan` */
export async function scanArchive(opts: ScanOptions): Promise<void> {
  const config = loadConfig();
  const tenantId = parseTenant(opts.tenant);
  await withArchive(config, async (store) => {
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
  if (r.rejectedCount === 0) return;
  const byCode = Object.entries(r.rejectedByCode).map(([code, n]) => `${n} ${code}`);
  printLine(`\n${r.rejectedCount} lines rejected (${byCode.join(', ')}):`);
  for (const x of r.rejected.slice(0, HUMAN_LIST_LIMIT))
    printLine(`  ${x.file ? `${x.file} ` : ''}line ${x.line}: ${x.reason}`);
  const listed = Math.min(HUMAN_LIST_LIMIT, r.rejected.length);
  if (r.rejectedCount > listed)
    printLine(`  … ${r.rejectedCount - listed} more (--json lists the first ${r.rejected.length})`);
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
