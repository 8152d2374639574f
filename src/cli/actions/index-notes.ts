import { loadConfig } from '../../config.ts';
import { TenantId } from '../../contracts/ids.ts';
import { checkRecallProjection, rebuildRecallProjection } from '../../db/index.ts';
import { withDb } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export interface IndexNotesOptions {
  tenant: string;
  rebuild?: boolean;
  json?: boolean;
}

/**
 * `nocturne index notes`: the recall projection of a tenant's notes. Without --rebuild it removes
 * rows whose validity has ended and reports any difference from the note store; with --rebuild
 * it derives the tenant's rows again from the note store (a dropped or damaged projection).
 */
export async function indexNotesCommand(opts: IndexNotesOptions): Promise<void> {
  const parsed = TenantId.safeParse(opts.tenant);
  if (!parsed.success) throw new UsageError(`--tenant: invalid value ${JSON.stringify(opts.tenant)}`);
  const tenantId = parsed.data;
  const config = loadConfig();
  const at = new Date().toISOString();
  const result = await withDb(config, async (db) => {
    const rebuilt = opts.rebuild ? await rebuildRecallProjection(db, { tenantId }) : undefined;
    return { ...(rebuilt ? { rebuilt } : {}), ...(await checkRecallProjection(db, { tenantId, at })) };
  });
  if (opts.json) return printJson({ tenantId, at, ...result });
  if (result.rebuilt)
    printLine(
      `tenant ${tenantId}: recall projection rebuilt, ${result.rebuilt.removed} row(s) removed, ${result.rebuilt.inserted} derived from the note store`,
    );
  printLine(
    `tenant ${tenantId}: ${result.rows} row(s) in the recall projection, ${result.expired} expired row(s) removed; differences from the note store: ${result.missing} missing, ${result.extra} extra`,
  );
  if (result.missing + result.extra > 0) {
    printLine(`run \`nocturne index notes --tenant ${tenantId} --rebuild\` to derive it again`);
    process.exitCode = 1;
  }
}
