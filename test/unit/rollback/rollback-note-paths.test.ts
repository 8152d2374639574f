import { describe, expect, it } from 'vitest';
import type { NoteContent } from '../../../src/contracts/note.ts';
import { applyNoteBatch, getNote, listNotes } from '../../../src/db/index.ts';
import { rollbackNote, type RollbackNoteInput } from '../../../src/rollback/note.ts';
import { createOp, freshNoteId } from '../../helpers/notes.ts';
import { freshTenantId, portsForThisFile } from '../../helpers/use-cases.ts';

const ports = portsForThisFile();

const CENTS = { kind: 'fact' as const, claim: 'The billing API returns amounts in cents.' };
const DOLLARS = { kind: 'fact' as const, claim: 'The billing API returns amounts already in dollars, not in cents.' };

/** A good note (cents) superseded by a bad new one (dollars) in a later run, as consolidation writes them. */
async function supersededPair(tenantId: string, bad: Partial<NoteContent> = DOLLARS) {
  const good = freshNoteId();
  const newer = freshNoteId();
  const seed = { tenantId, runId: 'seed', actor: 'consolidate/test' };
  await applyNoteBatch(ports.db, { ...seed, batchNo: 0, ops: [createOp(good, CENTS)] });
  await applyNoteBatch(ports.db, {
    ...seed,
    batchNo: 1,
    ops: [
      createOp(newer, bad),
      { op: 'newVersion', action: 'supersede', noteId: good, expectedVersion: 1, supersededBy: newer, reason: 'x' },
    ],
  });
  return { good, newer };
}

const request = (tenantId: string, noteId: string, more: Partial<RollbackNoteInput> = {}): RollbackNoteInput => ({
  tenantId,
  noteId,
  reason: 'wrong',
  operator: 'ops',
  requestId: `rollback-note/${freshNoteId()}`,
  ...more,
});

async function active(tenantId: string): Promise<string[]> {
  return (await listNotes(ports.db, { tenantId, status: 'active', limit: 100 })).notes.map((n) => n.noteId).sort();
}

describe('rollbackNote: retire or quarantine one note', () => {
  it.each([
    ['toVersion 0', { toVersion: 0 }],
    ['no toVersion on a version-1 note', {}],
    ['action retire', { action: 'retire' as const }],
  ])('%s retires the bad new note and restores the note it superseded', async (_name, more) => {
    const tenantId = freshTenantId('rb-retire');
    const { good, newer } = await supersededPair(tenantId);
    const r = await rollbackNote(ports, request(tenantId, newer, more));
    expect(r).toMatchObject({
      noop: false,
      changes: [
        { noteId: newer, action: 'retire', fromVersion: 1, toVersion: 2 },
        { noteId: good, action: 'rollback', fromVersion: 2, toVersion: 3 },
      ],
    });
    expect((await getNote(ports.db, { tenantId, noteId: newer }))?.status).toBe('retired');
    expect(await active(tenantId)).toEqual([good]);
  });

  it('the same input without toVersion twice: the second finds the note retired and changes nothing', async () => {
    const tenantId = freshTenantId('rb-twice');
    const { good, newer } = await supersededPair(tenantId);
    await rollbackNote(ports, request(tenantId, newer));
    expect(await rollbackNote(ports, request(tenantId, newer))).toMatchObject({ noop: true, changes: [] });
    expect(await active(tenantId)).toEqual([good]);
  });

  it('quarantine takes the note out of recall with status quarantined; again is a no-op', async () => {
    const tenantId = freshTenantId('rb-quarantine');
    const { newer } = await supersededPair(tenantId);
    await rollbackNote(ports, request(tenantId, newer, { action: 'quarantine' }));
    expect((await getNote(ports.db, { tenantId, noteId: newer }))?.status).toBe('quarantined');
    expect(await rollbackNote(ports, request(tenantId, newer, { action: 'quarantine' }))).toMatchObject({
      noop: true,
      changes: [],
    });
  });
});

describe('rollbackNote: reviving a superseded note settles its successor', () => {
  it('successor retire (the default): the revived note is the only active one of the pair', async () => {
    const tenantId = freshTenantId('rb-succ');
    const { good, newer } = await supersededPair(tenantId);
    const r = await rollbackNote(ports, request(tenantId, good));
    expect(r.changes).toEqual([
      { noteId: good, action: 'rollback', fromVersion: 2, toVersion: 3 },
      { noteId: newer, action: 'retire', fromVersion: 1, toVersion: 2 },
    ]);
    expect(await active(tenantId)).toEqual([good]);
  });

  it('successor keep is refused, changing nothing, when the two would contradict', async () => {
    const tenantId = freshTenantId('rb-keep-bad');
    const { good, newer } = await supersededPair(tenantId);
    await expect(rollbackNote(ports, request(tenantId, good, { successor: 'keep' }))).rejects.toMatchObject({
      type: 'RollbackWouldContradict',
    });
    expect(await active(tenantId)).toEqual([newer]);
  });

  it('successor keep leaves a successor that does not contradict the revived note active', async () => {
    const tenantId = freshTenantId('rb-keep');
    const unrelated = { kind: 'tool_behavior' as const, claim: 'The export tool times out on files above 10 MB.' };
    const { good, newer } = await supersededPair(tenantId, unrelated);
    const r = await rollbackNote(ports, request(tenantId, good, { successor: 'keep' }));
    expect(r.changes.map((c) => c.noteId)).toEqual([good]);
    expect(await active(tenantId)).toEqual([good, newer].sort());
  });
});

describe('rollbackNote: reporting', () => {
  it('a retried request whose first attempt committed reports what that attempt did', async () => {
    const tenantId = freshTenantId('rb-retry');
    const { newer } = await supersededPair(tenantId);
    const first = await rollbackNote(ports, request(tenantId, newer, { requestId: 'rollback-note/retry-1' }));
    const again = await rollbackNote(ports, request(tenantId, newer, { requestId: 'rollback-note/retry-1' }));
    expect(again).toEqual({ noop: false, retried: true, changes: first.changes, skipped: [] });
  });

  it('a restored note that would contradict an active note stays superseded, and says why', async () => {
    const tenantId = freshTenantId('rb-blocked');
    const { good, newer } = await supersededPair(tenantId);
    const rival = freshNoteId();
    await applyNoteBatch(ports.db, {
      tenantId,
      runId: 'later',
      batchNo: 0,
      actor: 'consolidate/test',
      ops: [createOp(rival, { ...CENTS, claim: 'The billing API returns amounts in euros, never in cents.' })],
    });
    const r = await rollbackNote(ports, request(tenantId, newer, { toVersion: 0 }));
    expect(r.changes.map((c) => c.noteId)).toEqual([newer]);
    expect(r.skipped).toEqual([{ noteId: good, why: `would contradict active note ${rival}` }]);
    expect(await active(tenantId)).toEqual([rival]);
  });
});
