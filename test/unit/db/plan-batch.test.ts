import { describe, expect, it } from 'vitest';
import type { NoteVersion } from '../../../src/contracts/note.ts';
import { NoteAlreadyExistsError, NoteVersionConflictError, NoteVersionNotFoundError } from '../../../src/db/errors.ts';
import { auditHash, GENESIS_HASH } from '../../../src/db/audit/hash.ts';
import { NoteOp, type ParsedNoteOp } from '../../../src/db/notes/ops.ts';
import { planBatch, versionKey, type PlanInput } from '../../../src/db/notes/plan.ts';
import { createOp, noteContent } from '../../helpers/notes.ts';

const AT = '2026-02-01T00:00:00.000Z';

function persisted(noteId: string, version: number, overrides: Partial<NoteVersion> = {}): NoteVersion {
  const c = noteContent();
  return {
    noteId,
    tenantId: 't',
    version,
    status: 'active',
    scope: c.scope,
    kind: c.kind,
    claim: c.claim,
    evidence: c.evidence,
    sourceKind: c.sourceKind,
    confidence: c.confidence,
    importance: c.importance,
    validFrom: c.validFrom,
    validUntil: null,
    supersededBy: null,
    sourceCount: 1,
    lastConfirmedAt: c.lastConfirmedAt,
    contradictedAt: null,
    createdByRun: 'old-run',
    createdAt: AT,
    ...overrides,
  };
}

function input(ops: unknown[], current: NoteVersion[] = [], targets: NoteVersion[] = []): PlanInput {
  return {
    tenantId: 't',
    runId: 'run-2',
    actor: 'actor',
    at: AT,
    ops: ops.map((o) => NoteOp.parse(o) as ParsedNoteOp),
    current: new Map(current.map((v) => [v.noteId, v])),
    targets: new Map(targets.map((v) => [versionKey(v.noteId, v.version), v])),
    auditHead: { seq: 41, hash: 'a'.repeat(64) },
  };
}

describe('planBatch', () => {
  it('chains several ops on one note in op order and moves the pointer once', () => {
    const plan = planBatch(
      input(
        [
          { op: 'newVersion', action: 'reinforce', noteId: 'n', expectedVersion: 3, changes: { sourceCount: 2 } },
          { op: 'newVersion', action: 'supersede', noteId: 'n', expectedVersion: 4, supersededBy: 'm' },
        ],
        [persisted('n', 3)],
      ),
    );
    expect(plan.versions.map((v) => [v.version, v.status, v.sourceCount, v.supersededBy])).toEqual([
      [4, 'active', 2, null],
      [5, 'superseded', 2, 'm'],
    ]);
    expect(plan.pointers).toEqual([{ noteId: 'n', version: 5, status: 'superseded', startVersion: 3 }]);
    expect(plan.changes.map((c) => [c.action, c.fromVersion, c.toVersion, c.auditSeq])).toEqual([
      ['reinforce', 3, 4, 42],
      ['supersede', 4, 5, 43],
    ]);
  });

  it('chains audit hashes from the head', () => {
    const plan = planBatch(input([createOp('a'), createOp('b')]));
    expect(plan.audit[0]?.prevHash).toBe('a'.repeat(64));
    expect(plan.audit[1]?.prevHash).toBe(plan.audit[0]?.hash);
    for (const e of plan.audit) expect(auditHash(e)).toBe(e.hash);
    const first = planBatch({ ...input([createOp('a')]), auditHead: undefined });
    expect(first.audit[0]).toMatchObject({ seq: 1, prevHash: GENESIS_HASH });
  });

  it.each([
    [
      'a stale version',
      [{ op: 'newVersion', action: 'revise', noteId: 'n', expectedVersion: 2 }],
      NoteVersionConflictError,
    ],
    [
      'a missing note',
      [{ op: 'newVersion', action: 'revise', noteId: 'x', expectedVersion: 1 }],
      NoteVersionConflictError,
    ],
    ['a second create', [createOp('n')], NoteAlreadyExistsError],
    [
      'a rollback to a version that never existed',
      [{ op: 'newVersion', action: 'rollback', noteId: 'n', expectedVersion: 3, targetVersion: 9 }],
      NoteVersionNotFoundError,
    ],
  ])('rejects %s', (_, ops, error) => {
    expect(() => planBatch(input(ops, [persisted('n', 3)]))).toThrow(error);
  });

  it('rollback copies the target content and status, and its embedding while the claim matches', () => {
    const target = persisted('n', 1, { claim: 'good claim', status: 'active' });
    const plan = planBatch(
      input(
        [{ op: 'newVersion', action: 'rollback', noteId: 'n', expectedVersion: 2, targetVersion: 1 }],
        [persisted('n', 2, { claim: 'bad claim', status: 'quarantined' })],
        [target],
      ),
    );
    expect(plan.versions[0]).toMatchObject({
      version: 3,
      claim: 'good claim',
      status: 'active',
      embedding: { copyFrom: 1 },
    });
  });

  it('drops the embedding when the claim changes and keeps an explicit one', () => {
    const plan = planBatch(
      input(
        [
          { op: 'newVersion', action: 'revise', noteId: 'n', expectedVersion: 1, changes: { claim: 'new' } },
          { op: 'newVersion', action: 'reinforce', noteId: 'n', expectedVersion: 2, embedding: [0.1, 0.2] },
          { op: 'newVersion', action: 'reinforce', noteId: 'n', expectedVersion: 3 },
        ],
        [persisted('n', 1)],
      ),
    );
    expect(plan.versions.map((v) => v.embedding)).toEqual([null, { vector: [0.1, 0.2] }, { vector: [0.1, 0.2] }]);
  });

  it('refuses ops that lack what their action needs', () => {
    expect(NoteOp.safeParse({ op: 'newVersion', action: 'supersede', noteId: 'n', expectedVersion: 1 }).success).toBe(
      false,
    );
    expect(NoteOp.safeParse({ op: 'newVersion', action: 'rollback', noteId: 'n', expectedVersion: 1 }).success).toBe(
      false,
    );
  });
});
