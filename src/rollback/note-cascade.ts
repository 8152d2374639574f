import type { NoteScope, NoteVersion } from '../contracts/note.ts';
import { FailureType } from '../contracts/failure-types.ts';
import { contradictedBy, restorable, type SlotNote } from '../../policies/rollback-settle.ts';
import {
  getNote,
  getNoteHistory,
  selectCurrentInScopes,
  selectSupersededBy,
  withTenant,
  type NoteOp,
} from '../db/index.ts';
import { PermanentFailure, type Ports } from '../ports.ts';
import { contentOf } from '../contracts/note.ts';
import { endContent, endStatus, goalOp, type RollbackGoal } from './note-goal.ts';

/** Statuses recall (or an approval) can bring to an agent. */
const RECALLABLE = new Set(['active', 'staged']);

export interface CascadeRequest {
  tenantId: string;
  reason: string;
  successor?: 'retire' | 'keep' | undefined;
}

export interface RollbackPlan {
  ops: NoteOp[];
  /** Notes the cascade would have restored but left as they are, and why. */
  skipped: Array<{ noteId: string; why: string }>;
}

type Db = Pick<Ports, 'db'>;

/**
 * Every operation one note's rollback needs, so that afterwards no two active notes contradict
 * each other in one slot:
 * 1. the note itself reaches its goal;
 * 2. coming back from `superseded`, its successor is retired (or kept, when asked and compatible);
 * 3. active notes the revived note contradicts are superseded by it (the operator chose it);
 * 4. notes it superseded since the target version come back, unless one would contradict what stays active.
 */
export async function planRollback(
  ports: Db,
  input: CascadeRequest,
  current: NoteVersion,
  goal: RollbackGoal,
): Promise<RollbackPlan> {
  const revives = endStatus(goal) === 'active';
  const successor = revives ? await liveSuccessor(ports, input.tenantId, current) : undefined;
  const choice = input.successor ?? 'retire';
  const reason = successor ? `${input.reason} (successor ${successor.noteId}: ${choice})` : input.reason;
  const primary = goalOp(current, goal, reason);
  if (!primary) return { ops: [], skipped: [] };
  const ops: NoteOp[] = [primary];
  const leaving = new Set([current.noteId]);
  if (successor && choice === 'retire') {
    ops.push(retireOp(successor, `successor of revived note ${current.noteId} retired: ${input.reason}`));
    leaving.add(successor.noteId);
  }
  const candidates = await restoreCandidates(ports, input.tenantId, current.noteId, goal);
  const revived: SlotNote = { noteId: current.noteId, content: endContent(current, goal) };
  const scopes = [revived, ...candidates].map((c) => c.content.scope);
  const active = (await activeIn(ports, input.tenantId, scopes)).filter((n) => !leaving.has(n.noteId));
  let standing: SlotNote[] = active;
  if (revives) {
    const losers = contradictedBy(revived, standing);
    if (successor && choice === 'keep' && losers.includes(successor.noteId)) {
      throw new PermanentFailure(
        `successor: keeping ${successor.noteId} would leave it and ${current.noteId} contradicting each other; use "successor": "retire"`,
        FailureType.RollbackWouldContradict,
      );
    }
    for (const loser of active.filter((n) => losers.includes(n.noteId)))
      ops.push(supersedeOp(loser, current.noteId, `contradicts revived note ${current.noteId}: ${input.reason}`));
    standing = [...standing.filter((n) => !losers.includes(n.noteId)), revived];
  }
  const { restore, blocked } = restorable(candidates, standing);
  for (const c of candidates.filter((x) => restore.includes(x.noteId)))
    ops.push(restoreOp(c, `restored: ${primary.op === 'newVersion' ? primary.reason : input.reason}`));
  return { ops, skipped: blocked.map((b) => ({ noteId: b.noteId, why: `would contradict active note ${b.by}` })) };
}

/** The note that superseded `current`, while recall can still see it. */
async function liveSuccessor(ports: Db, tenantId: string, current: NoteVersion): Promise<NoteVersion | undefined> {
  if (current.status !== 'superseded' || !current.supersededBy) return undefined;
  const successor = await getNote(ports.db, { tenantId, noteId: current.supersededBy });
  return successor && RECALLABLE.has(successor.status) ? successor : undefined;
}

type Candidate = SlotNote & { version: number };
type Active = SlotNote & { version: number };

/**
 * Notes the rolled-back note supersedes, each with the version before its supersession: every
 * one when the note leaves recall, else those superseded after the target version was written.
 */
async function restoreCandidates(ports: Db, tenantId: string, noteId: string, goal: RollbackGoal) {
  const superseded = await withTenant(ports.db, tenantId, (tx) => selectSupersededBy(tx, { noteId }));
  const after = goal.kind === 'version' ? goal.target.createdAt : undefined;
  const out: Candidate[] = [];
  for (const s of superseded.filter((x) => x.version > 1 && (after === undefined || x.createdAt > after))) {
    const { versions } = await getNoteHistory(ports.db, { tenantId, noteId: s.noteId });
    const before = versions.find((v) => v.version === s.version - 1);
    if (before) out.push({ noteId: s.noteId, version: s.version, content: contentOf(before) });
  }
  return out;
}

async function activeIn(ports: Db, tenantId: string, scopes: NoteScope[]): Promise<Active[]> {
  const unique = [...new Map(scopes.map((s) => [`${s.level}\u0000${s.key}`, s])).values()];
  const current = await withTenant(ports.db, tenantId, (tx) => selectCurrentInScopes(tx, { scopes: unique }));
  return current
    .filter((v) => v.status === 'active')
    .map((v) => ({ noteId: v.noteId, version: v.version, content: contentOf(v) }));
}

const retireOp = (v: NoteVersion, reason: string): NoteOp => ({
  op: 'newVersion',
  action: 'retire',
  noteId: v.noteId,
  expectedVersion: v.version,
  reason,
});

const supersedeOp = (n: Active, by: string, reason: string): NoteOp => ({
  op: 'newVersion',
  action: 'supersede',
  noteId: n.noteId,
  expectedVersion: n.version,
  supersededBy: by,
  reason,
});

const restoreOp = (c: Candidate, reason: string): NoteOp => ({
  op: 'newVersion',
  action: 'rollback',
  noteId: c.noteId,
  expectedVersion: c.version,
  targetVersion: c.version - 1,
  reason,
});
