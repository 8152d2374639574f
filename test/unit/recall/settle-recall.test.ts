import { describe, expect, it } from 'vitest';
import type { NoteContent } from '../../../src/contracts/note.ts';
import { applyNoteBatch, type NoteOp } from '../../../src/db/index.ts';
import { recall } from '../../../src/recall/index.ts';
import { createOp, freshNoteId } from '../../helpers/notes.ts';
import { freshTenantId, portsForThisFile } from '../../helpers/use-cases.ts';

// Conflicts settled before injection, on PGlite: one note per slot, contradicted notes left out or marked.

const ports = portsForThisFile();

const NOW = new Date('2026-06-01T00:00:00.000Z');
let batchNo = 0;

async function commit(tenantId: string, notes: Array<Partial<NoteContent>>): Promise<string[]> {
  const ops: NoteOp[] = [];
  for (const content of notes) {
    const [embedding] = await ports.embedder.embed([content.claim as string]);
    ops.push({ ...createOp(freshNoteId(), content), embedding } as NoteOp);
  }
  await applyNoteBatch(ports.db, { tenantId, runId: 'run', batchNo: batchNo++, actor: 'test', ops }, () => NOW);
  return ops.map((o) => (o as { noteId: string }).noteId);
}

const seat = (value: string, confidence: number) => ({
  claim: `u-dan prefers ${value} on flights`,
  confidence,
  structure: { subject: { type: 'user' as const, id: 'u-dan' }, attribute: 'prefers', value, exclusive: true },
});

const ask = (tenantId: string) =>
  recall(
    ports.db,
    ports.embedder,
    { tenantId, query: 'which seats does u-dan prefer on flights', k: 5 },
    { now: () => NOW },
  );

describe('recall settles conflicts', () => {
  it('never returns two notes of one slot: one stays and lists the other as a suppressed conflict', async () => {
    const tenantId = freshTenantId('slots');
    const ids = await commit(tenantId, [seat('aisle seats', 0.9), seat('window seats', 0.5)]);
    const result = await ask(tenantId);
    expect(result.notes).toHaveLength(1);
    const [kept] = result.notes;
    const other = ids.find((id) => id !== kept?.noteId);
    expect(kept?.conflicts).toEqual([
      { noteId: other, version: 1, claim: expect.any(String), confidence: expect.any(Number) },
    ]);
    expect(result.ranking).toEqual([{ type: 'note', id: kept?.noteId }]);
    expect(result.stats.slotConflictsSuppressed).toBe(1);
  });

  it('returns both when the attribute accumulates values (not a conflict)', async () => {
    const tenantId = freshTenantId('accumulates');
    await commit(tenantId, [
      { ...seat('aisle seats', 0.9), structure: { ...seat('aisle seats', 0.9).structure, exclusive: false } },
      { ...seat('window seats', 0.5), structure: { ...seat('window seats', 0.5).structure, exclusive: false } },
    ]);
    expect((await ask(tenantId)).notes).toHaveLength(2);
  });

  it('leaves out a contradicted note of low confidence and marks a contradicted one still trusted', async () => {
    const tenantId = freshTenantId('contradicted');
    const at = '2026-05-01T00:00:00.000Z';
    const [trusted] = await commit(tenantId, [
      { claim: 'u-dan prefers aisle seats on flights', confidence: 0.54, contradictedAt: at },
      { claim: 'u-dan prefers trains to flights', confidence: 0.32, contradictedAt: at },
    ]);
    const result = await ask(tenantId);
    expect(result.notes.map((n) => n.noteId)).toEqual([trusted]);
    expect(result.notes[0]?.contradictedAt).toBe(at);
    expect(result.stats.contradictedLeftOut).toBe(1);
  });
});
