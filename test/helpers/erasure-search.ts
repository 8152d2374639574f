import { gunzipSync } from 'node:zlib';
import { readObject, tenantPrefix, type ArchivedRecord, type ArchiveStore } from '../../src/archive/index.ts';
import { withTenant, type Db } from '../../src/db/index.ts';
import { unscoped } from '../../src/db/unscoped.ts';

/** Every row of the tenant in any table of the schema (from the catalog), as text: the raw SQL search. */
export async function rowsMentioning(db: Db, schema: string, tenantId: string, needle: string): Promise<string[]> {
  const { rows } = await unscoped(db).query(
    `SELECT relname AS t FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition AND relname <> 'pgmigrations'`,
    [schema],
  );
  const hits: string[] = [];
  for (const { t } of rows as Array<{ t: string }>) {
    const { rows: found } = await withTenant(db, tenantId, (tx) =>
      tx.query(`SELECT count(*)::int AS n FROM ${schema}.${t} x WHERE x.tenant_id = $1 AND strpos(x::text, $2) > 0`, [
        tenantId,
        needle,
      ]),
    );
    const n = (found[0] as { n: number }).n;
    if (n > 0) hits.push(`${t}:${n}`);
  }
  return hits;
}

/** Every object of the tenant in S3, decompressed, as text: the raw S3 search. */
export async function objectsMentioning(archive: ArchiveStore, tenantId: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for await (const o of archive.list(tenantPrefix(tenantId))) {
    const bytes = await archive.getBytes(o.key);
    const text = (o.key.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
    if (text.includes(needle)) hits.push(o.key);
  }
  return hits;
}

/** Every record of the tenant's archive, with where it is stored. */
export async function archivedRecords(archive: ArchiveStore, tenantId: string): Promise<ArchivedRecord[]> {
  const out: ArchivedRecord[] = [];
  for await (const o of archive.list(tenantPrefix(tenantId)))
    if (o.key.endsWith('.jsonl.gz')) for await (const r of readObject(archive, o.key)) out.push(r);
  return out;
}
