import { verifyTenantAudit } from '../../audit/anchor.ts';
import { loadConfig } from '../../config.ts';
import { TenantId } from '../../contracts/ids.ts';
import { withArchive, withDb } from '../../runtime.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export interface AuditVerifyOptions {
  tenant: string;
  json?: boolean;
}

/** `nocturne audit verify` */
export async function auditVerifyCommand(opts: AuditVerifyOptions): Promise<void> {
  const tenant = TenantId.safeParse(opts.tenant);
  if (!tenant.success) throw new UsageError(`--tenant: ${tenant.error.issues[0]?.message ?? 'invalid tenant id'}`);
  const config = loadConfig();
  const result = await withDb(config, (db) =>
    withArchive(config, (archive) => verifyTenantAudit({ db, archive }, tenant.data)),
  );
  if (!result.chain.ok) process.exitCode = EXIT.failure;
  if (opts.json) return printJson({ tenantId: tenant.data, ...result });
  const c = result.chain;
  printLine(`${c.ok ? 'ok' : 'BROKEN'}: ${c.entries} entries verified (${c.keyed} keyed, ${c.legacy} legacy)`);
  if (c.legacy > 0)
    printLine(`  legacy: ${c.legacy} entries from before the audit key, unkeyed sha256 (a writer could re-chain them)`);
  if (c.redacted > 0) printLine(`  redacted by erasure: ${c.redacted} legacy entries (reason replaced, hash kept)`);
  if (c.scrubbed > 0) printLine(`  scrubbed by erasure: ${c.scrubbed} recorded versions (content removed)`);
  printLine(
    result.latestPublished === null
      ? '  archive: no chain head published yet'
      : `  archive: ${result.published} heads published, the latest at ${result.latestPublished}`,
  );
  if (!c.ok) printLine(`  broken at entry ${c.brokenSeq}: ${c.reason}`);
}
