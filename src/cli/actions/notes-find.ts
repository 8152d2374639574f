import { loadConfig } from '../../config.ts';
import { TenantId } from '../../contracts/ids.ts';
import { selectCurrentVersionsByText, withTenant } from '../../db/index.ts';
import { withDb } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, table } from '../output.ts';

export interface FindOptions {
  tenant: string;
  text: string;
  limit: string;
  json?: boolean;
}

/** Claims are cut to this width in the table; --json prints them whole. */
const CLAIM_WIDTH = 72;

/** `nocturne notes find`: the notes whose claim contains the text, in every status, newest change first. */
export async function findNotesCommand(opts: FindOptions): Promise<void> {
  const tenant = TenantId.safeParse(opts.tenant);
  if (!tenant.success) throw new UsageError(`--tenant: ${tenant.error.issues[0]?.message ?? 'invalid tenant id'}`);
  const text = opts.text.trim();
  if (text === '') throw new UsageError('--text: give some words of the claim');
  const limit = Number(opts.limit);
  if (!/^\d+$/.test(opts.limit) || limit < 1 || limit > 1000)
    throw new UsageError(`--limit: expected an integer from 1 to 1000, got ${JSON.stringify(opts.limit)}`);
  const tenantId = tenant.data;
  await withDb(loadConfig(), async (db) => {
    const notes = await withTenant(db, tenantId, (tx) => selectCurrentVersionsByText(tx, { tenantId, text, limit }));
    if (opts.json) return printJson({ tenantId, text, notes });
    if (notes.length === 0) return printLine(`no note of ${tenantId} has "${text}" in its claim`);
    printLine(
      table(
        ['STATUS', 'KIND', 'SCOPE', 'CLAIM', 'NOTE', 'VER'],
        notes.map((n) => [
          n.status,
          n.kind,
          `${n.scope.level}:${n.scope.key}`,
          n.claim.length > CLAIM_WIDTH ? `${n.claim.slice(0, CLAIM_WIDTH - 1)}…` : n.claim,
          n.noteId,
          n.version,
        ]),
      ),
    );
  });
}
