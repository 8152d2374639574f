import { loadConfig } from '../../config.ts';
import { IsoDateTime, TenantId } from '../../contracts/ids.ts';
import type { Progress } from '../../ports.ts';
import { indexRecords, rebuildRecordIndex, type IndexRecordsResult } from '../../record-index/index.ts';
import { openRecallEmbedder, withArchive, withDb } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, progress } from '../output.ts';

export interface IndexRecordsOptions {
  tenant: string;
  rebuild?: boolean;
  from?: string;
  to?: string;
  json?: boolean;
}

/** `nocturne index records` */
export async function indexRecordsCommand(opts: IndexRecordsOptions): Promise<void> {
  const tenantId = parse('--tenant', TenantId, opts.tenant);
  const window = {
    ...(opts.from !== undefined ? { from: parse('--from', IsoDateTime, opts.from) } : {}),
    ...(opts.to !== undefined ? { to: parse('--to', IsoDateTime, opts.to) } : {}),
  };
  if (opts.rebuild && (window.from !== undefined || window.to !== undefined))
    throw new UsageError('--rebuild indexes the whole archive: it takes no --from or --to');
  const config = loadConfig();
  // The embedder recall queries with: the index's vectors must be comparable with its queries.
  const embedder = await openRecallEmbedder(config);
  const line = progress(`indexing ${tenantId}`);
  let objects = 0;
  const report: Progress = {
    beat: () => line.update(++objects),
    during: (work) => work,
  };
  const result = await withDb(config, (db) =>
    withArchive(config, async (archive) => {
      const ports = { db, archive, embedder };
      return opts.rebuild
        ? rebuildRecordIndex(ports, { tenantId }, report)
        : indexRecords(ports, { tenantId, window }, report);
    }),
  );
  line.done(`${result.objects} object(s) read`);
  if (opts.json) return printJson({ tenantId, embedder: embedder.name, ...result });
  printSummary(tenantId, embedder.name, result);
}

function printSummary(tenantId: string, model: string, r: IndexRecordsResult & { dropped?: number }): void {
  const dropped = r.dropped !== undefined ? `dropped ${r.dropped} indexed record(s); ` : '';
  const replaced = r.replaced > 0 ? ` (${r.replaced} in place of rows of an older vector form)` : '';
  printLine(
    `tenant ${tenantId}: ${dropped}${r.objects} archive object(s) read, ${r.records} record(s) indexed${replaced}, ${r.embedded} text(s) embedded by ${model} (the rest from the cache)`,
  );
}

function parse<T>(
  flag: string,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: string,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${flag}: invalid value ${JSON.stringify(value)}`);
  return parsed.data;
}
