import { attributeEpisode, recalledNoteIds } from '../policies/attribution.ts';
import { alreadyKnown, reconcile, type KnownNote } from '../policies/reconcile.ts';
import { redact } from '../policies/redaction.ts';
import { validateProposal } from '../policies/validation.ts';
import type { Episode, Proposal } from '../src/contracts/episode.ts';
import type { NoteVersion } from '../src/contracts/note.ts';
import { withTenant } from '../src/db/index.ts';
import type { NoteOp } from '../src/db/notes/ops.ts';
import { selectCurrentVersion } from '../src/db/notes/read-queries.ts';
import {
  insertRejections,
  insertRunBatch,
  selectCurrentInScopes,
  selectBatchEpisodes,
  selectRunBatch,
} from '../src/db/run-work.ts';
import { loadEpisodes, resolveEvidence } from '../src/episodes/episodes.ts';
import { classified, heartbeat, whileHeartbeating, type ActivityDeps } from './deps.ts';

export interface ReplayBatchInput {
  runId: string;
  tenantId: string;
  batchNo: number;
  /**
   * The run's window. Planning selects whole archive objects and episodes from manifests, so an
   * episode may hold records outside it; those are left out here, record by record.
   */
  window?: { from?: string | undefined; to?: string | undefined };
  llmTokensLeft: number;
}

export interface ReplayBatchResult {
  episodes: number;
  replayed: number;
  proposed: number;
  rejectedByRule: Record<string, number>;
  quarantined: number;
  plannedChanges: number;
  llmTokens: number;
}

export function createReplayActivities(deps: ActivityDeps) {
  return {
    /**
     * Replays one batch of sampled episodes: read their lines, compare & attribute, propose,
     * validate against the cited records, reconcile with current notes. Stores the operations
     * for commitBatch; a retry returns the stored summary instead of proposing again.
     */
    replayBatch: classified(async (input: ReplayBatchInput): Promise<ReplayBatchResult> => {
      const key = { runId: input.runId, batchNo: input.batchNo };
      const stored = await withTenant(deps.db, input.tenantId, (tx) => selectRunBatch(tx, key));
      if (stored) return stored.summary as ReplayBatchResult;
      const planned = await withTenant(deps.db, input.tenantId, (tx) => selectBatchEpisodes(tx, key));
      const { episodes } = await loadEpisodes(deps.archive, input.tenantId, planned, {
        onObject: (objectKey) => heartbeat({ objectKey }),
        ...(input.window ? { window: input.window } : {}),
      });
      const known = await knownNotes(deps, input.tenantId, episodes);
      const succeeded = episodes.filter((e) =>
        e.records.some((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'success'),
      );
      const findings = episodes.flatMap((e) => attributeEpisode(e, succeeded));
      const now = (deps.clock ?? (() => new Date()))();
      const active = known.filter((n) => n.status === 'active');
      const { proposals, llmTokens } = await whileHeartbeating(
        deps.engine.propose({
          episodes,
          findings,
          activeNotes: active,
          now,
          tokenBudget: Math.max(0, input.llmTokensLeft),
        }),
      );
      const redacted = proposals.map(redactClaim);
      const resolved = await resolveEvidence(
        deps.archive,
        redacted.flatMap((p) => p.content.evidence),
        episodes.flatMap((e) => e.records),
      );
      const accepted: Proposal[] = [];
      const quarantined: Proposal[] = [];
      const rejections: Array<{ rule: string; detail: string; proposal: Proposal }> = [];
      for (const p of redacted) {
        const v = validateProposal(p, input.tenantId, resolved);
        if (v.verdict === 'accept') accepted.push(p);
        else if (v.verdict === 'quarantine')
          quarantined.push({ ...p, op: 'quarantine', reason: `${v.rule}: ${v.detail}` });
        else rejections.push({ rule: v.rule, detail: v.detail, proposal: p });
      }
      const reconciled = reconcile(accepted, known, () => deps.newId());
      const newQuarantines = quarantined.filter((p) => !alreadyKnown(p, known));
      const ops = [...reconciled, ...newQuarantines.map((p) => ({ ...p, noteId: deps.newId() }))].map(toNoteOp);
      const summary: ReplayBatchResult = {
        episodes: episodes.length,
        replayed: episodes.reduce((n, e) => n + e.records.length, 0),
        proposed: proposals.length,
        rejectedByRule: countBy(rejections.map((r) => r.rule)),
        quarantined: newQuarantines.length,
        plannedChanges: ops.length,
        llmTokens,
      };
      await withTenant(deps.db, input.tenantId, async (tx) => {
        await insertRejections(tx, { tenantId: input.tenantId, ...key, rejections });
        await insertRunBatch(tx, { tenantId: input.tenantId, ...key, ops, summary });
      });
      return summary;
    }),
  };
}

/** Active notes in the scopes these episodes touch, plus the notes they recalled. */
async function knownNotes(deps: ActivityDeps, tenantId: string, episodes: Episode[]): Promise<KnownNote[]> {
  const scopes = new Map<string, { level: 'user' | 'agent' | 'task_type' | 'tenant'; key: string }>();
  const add = (level: 'user' | 'agent' | 'task_type' | 'tenant', key: string | undefined) =>
    key && scopes.set(`${level}:${key}`, { level, key });
  add('tenant', tenantId);
  for (const e of episodes) {
    add('user', e.userId);
    add('agent', e.agentId);
    add('task_type', e.taskType);
  }
  const recalled = new Set(
    episodes.flatMap((e) =>
      e.records.filter((r) => r.record.kind === 'memory_used').flatMap((r) => recalledNoteIds(r.record.payload)),
    ),
  );
  const versions = await withTenant(deps.db, tenantId, async (tx) => {
    const inScope = await selectCurrentInScopes(tx, { scopes: [...scopes.values()] });
    const extra: NoteVersion[] = [];
    for (const noteId of recalled) {
      const v = inScope.some((n) => n.noteId === noteId)
        ? undefined
        : await selectCurrentVersion(tx, { tenantId, noteId });
      if (v && v.status !== 'erased') extra.push(v);
    }
    return [...inScope, ...extra];
  });
  return versions.map((v) => ({
    noteId: v.noteId,
    version: v.version,
    status: v.status,
    content: {
      scope: v.scope,
      kind: v.kind,
      claim: v.claim,
      evidence: v.evidence,
      sourceKind: v.sourceKind,
      confidence: v.confidence,
      importance: v.importance,
      validFrom: v.validFrom,
      validUntil: v.validUntil,
      sourceCount: v.sourceCount,
      lastConfirmedAt: v.lastConfirmedAt,
      contradictedAt: v.contradictedAt,
    },
  }));
}

function redactClaim(p: Proposal): Proposal {
  return { ...p, content: { ...p.content, claim: redact(p.content.claim).text } };
}

/** Proposal → the note store's operation. New notes get their ids here, before storage, so retries reuse them. */
export function toNoteOp(p: Proposal): NoteOp {
  const reason = `${p.finding}: ${p.reason}`.slice(0, 2000);
  if (p.op === 'create' || (p.op === 'quarantine' && p.expectedVersion === undefined)) {
    return {
      op: 'create',
      noteId: p.noteId as string,
      content: p.content,
      status: p.op === 'quarantine' ? 'quarantined' : 'active',
      reason,
    };
  }
  const action = p.op === 'quarantine' ? 'quarantine' : p.op;
  return {
    op: 'newVersion',
    action,
    noteId: p.noteId as string,
    expectedVersion: p.expectedVersion as number,
    changes: p.content,
    reason,
    ...(p.supersededBy ? { supersededBy: p.supersededBy } : {}),
  };
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
