import { z } from 'zod';
import type { ArchiveStore } from '../archive/index.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { type AuditChainReport, getAuditHead, verifyAuditChain } from '../db/index.ts';
import { nowOf, PermanentFailure, type Ports } from '../ports.ts';

/**
 * The audit chain's heads, published to the archive under write-once keys: a copy of the chain
 * outside the database. Whoever rewrites the database (even re-chaining it with valid hashes,
 * or cutting its tail) cannot change what was published, and verification compares the two.
 */

const PublishedHead = z.object({
  tenantId: z.string(),
  seq: z.number().int().min(1),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  keyId: z.string().nullable(),
  publishedAt: z.string(),
});
export type PublishedHead = z.infer<typeof PublishedHead>;

export const auditHeadPrefix = (tenantId: string): string => `audit/tenant=${tenantId}/`;

/** Zero-padded, so the archive lists a tenant's heads in seq order. */
export function auditHeadKey(tenantId: string, seq: number): string {
  return `${auditHeadPrefix(tenantId)}head-${String(seq).padStart(12, '0')}.json`;
}

/**
 * Publishes the tenant's current chain head (after a run). Idempotent: a head already published
 * at that seq with the same hash is fine; another hash there means the chain was rewritten since
 * it was published, which fails permanently (an operator must look).
 */
export async function publishAuditHead(
  ports: Pick<Ports, 'db' | 'archive' | 'clock'>,
  tenantId: string,
): Promise<PublishedHead | undefined> {
  const head = await getAuditHead(ports.db, tenantId);
  if (!head) return undefined;
  const body: PublishedHead = { tenantId, ...head, publishedAt: nowOf(ports).toISOString() };
  const key = auditHeadKey(tenantId, head.seq);
  const put = await ports.archive.putIfAbsent(key, Buffer.from(JSON.stringify(body)), 'application/json');
  if (put === 'written') return body;
  const existing = PublishedHead.parse(JSON.parse((await ports.archive.getBytes(key)).toString('utf8')));
  if (existing.hash !== head.hash) {
    throw new PermanentFailure(
      `tenant ${tenantId}: audit entry ${head.seq} is not the head published at ${head.seq} (${key}): the chain was rewritten`,
      FailureType.AuditHeadConflict,
    );
  }
  return existing;
}

export async function readPublishedHeads(archive: ArchiveStore, tenantId: string): Promise<PublishedHead[]> {
  const heads: PublishedHead[] = [];
  for await (const o of archive.list(auditHeadPrefix(tenantId))) {
    if (!o.key.endsWith('.json')) continue;
    heads.push(PublishedHead.parse(JSON.parse((await archive.getBytes(o.key)).toString('utf8'))));
  }
  return heads;
}

export interface AuditVerification {
  chain: AuditChainReport;
  /** Heads found in the archive, and the latest of them (null: none published yet). */
  published: number;
  latestPublished: number | null;
}

/** `nocturne audit verify`: the chain on its own, and against every head the archive holds. */
export async function verifyTenantAudit(
  ports: Pick<Ports, 'db' | 'archive'>,
  tenantId: string,
): Promise<AuditVerification> {
  const heads = await readPublishedHeads(ports.archive, tenantId);
  const chain = await verifyAuditChain(ports.db, tenantId, {
    anchors: heads.map((h) => ({ seq: h.seq, hash: h.hash })),
  });
  return { chain, published: heads.length, latestPublished: heads.at(-1)?.seq ?? null };
}
