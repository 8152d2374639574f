import { monotonicFactory } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { getNoteHistory, insertMemoryUsage, listNotes } from '../../../src/db/index.ts';
import {
  archiveRecords,
  consolidate,
  freshTenantId,
  portsForThisFile,
  preferenceSession,
} from '../../helpers/use-cases.ts';

// Success after a recall, on PGlite and a file archive: the recalled note is confirmed by the
// task's outcome, whether the agent archived a memory_used record or only the recall API logged
// the request, and a second run over the same archive confirms nothing twice.

const ports = portsForThisFile();

const nextId = monotonicFactory(() => 0.25);
const LATER = Date.parse('2026-11-03T09:00:00Z');

/** A later task for the same user that recalls `noteId` (archived as memory_used unless `logged`) and succeeds. */
function recallingTask(tenantId: string, taskId: string, noteId: string, archived: boolean): RawRecordInput[] {
  const steps: Array<Partial<RawRecordInput>> = [
    { kind: 'user_message', text: 'Send me the monthly invoice totals.', source: 'user', role: 'user' },
    ...(archived ? [{ kind: 'memory_used' as const, source: 'system' as const, payload: { noteIds: [noteId] } }] : []),
    { kind: 'agent_message', text: 'Here are your reports as a table. | Month | Total |', source: 'agent' },
    { kind: 'task_outcome', source: 'system', outcome: { status: 'success' } },
  ];
  return steps.map((step, i) => {
    const observed = LATER + i * 20_000;
    return {
      id: nextId(observed),
      tenantId,
      userId: 'u-alice',
      agentId: 'billing-assistant',
      sessionId: `session-${taskId}`,
      taskId,
      taskType: 'invoice_report',
      observedAt: new Date(observed).toISOString(),
      recordedAt: new Date(observed + 1000).toISOString(),
      ...step,
    } as RawRecordInput;
  });
}

async function learnedPreference(tenantId: string) {
  await archiveRecords(ports, preferenceSession(tenantId, 'u-alice'));
  await consolidate(ports, tenantId, 'run-1');
  const [note] = (await listNotes(ports.db, { tenantId, limit: 10 })).notes;
  expect(note).toMatchObject({ version: 1, sourceCount: 1 });
  return note!;
}

async function versions(tenantId: string, noteId: string) {
  return (await getNoteHistory(ports.db, { tenantId, noteId })).versions;
}

describe('success after a recall', () => {
  it('an archived memory_used record: the success confirms the note once, citing the outcome', async () => {
    const tenantId = freshTenantId('recall-archived');
    const note = await learnedPreference(tenantId);
    const task = recallingTask(tenantId, 'task-2', note.noteId, true);
    await archiveRecords(ports, task);
    await consolidate(ports, tenantId, 'run-2');
    const after = await versions(tenantId, note.noteId);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ status: 'active', sourceCount: 2 });
    expect(after[1]!.confidence).toBeGreaterThan(note.confidence);
    expect(after[1]!.evidence.map((e) => e.recordId)).toContain(task.at(-1)!.id);

    await consolidate(ports, tenantId, 'run-3');
    expect(await versions(tenantId, note.noteId)).toHaveLength(2);
  });

  it("the recall API's usage log counts as a recall, without any memory_used record", async () => {
    const tenantId = freshTenantId('recall-logged');
    const note = await learnedPreference(tenantId);
    await archiveRecords(ports, recallingTask(tenantId, 'task-2', note.noteId, false));
    await insertMemoryUsage(ports.db, {
      tenantId,
      rows: [{ taskId: 'task-2', noteId: note.noteId, version: 1, rank: 1, score: 0.9, at: '2026-11-03T09:00:05Z' }],
    });
    await consolidate(ports, tenantId, 'run-2');
    const after = await versions(tenantId, note.noteId);
    expect(after.map((v) => [v.version, v.sourceCount])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    await consolidate(ports, tenantId, 'run-3');
    expect(await versions(tenantId, note.noteId)).toHaveLength(2);
  });

  it('a task that recalled nothing confirms nothing', async () => {
    const tenantId = freshTenantId('recall-none');
    const note = await learnedPreference(tenantId);
    await archiveRecords(ports, recallingTask(tenantId, 'task-2', note.noteId, false));
    await consolidate(ports, tenantId, 'run-2');
    expect(await versions(tenantId, note.noteId)).toHaveLength(1);
  });
});
