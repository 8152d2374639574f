import { describe, expect, it } from 'vitest';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { listNotes } from '../../../src/db/index.ts';
import { archiveRecords, consolidate, freshTenantId, portsForThisFile } from '../../helpers/use-cases.ts';

// Nightly runs replay episodes they have seen before. A note scoped to one session (a user's
// correction about that one task) must be recognised when its episode is replayed again, not
// written a second time beside itself: before, consolidation looked up known notes by user,
// agent, task type and tenant only, and each night added another copy.

const ports = portsForThisFile();

/** A task whose user corrects a detail of that one task, then the task succeeds. */
function correctedSession(tenantId: string): RawRecordInput[] {
  const base = {
    tenantId,
    userId: 'u-dana',
    agentId: 'billing-assistant',
    sessionId: 'session-refund-1',
    taskId: 'session-refund-1-t1',
    taskType: 'invoice_report',
  };
  const steps: Array<Partial<RawRecordInput>> = [
    { kind: 'user_message', text: 'How much did we refund in March?', source: 'user', role: 'user' },
    { kind: 'agent_message', text: 'We refunded 1240 dollars.', source: 'agent', role: 'assistant' },
    {
      kind: 'user_correction',
      text: 'No, refunds come back in dollars, not cents.',
      source: 'user',
      role: 'user',
    },
    { kind: 'task_outcome', source: 'system', outcome: { status: 'failure' } },
  ];
  return steps.map((step, i) => {
    const at = Date.parse('2026-11-03T09:00:00Z') + i * 20_000;
    return {
      id: `01KV00000000000000000000${String(i).padStart(2, '0')}`,
      ...base,
      observedAt: new Date(at).toISOString(),
      recordedAt: new Date(at + 1000).toISOString(),
      ...step,
    } as RawRecordInput;
  });
}

async function sessionNotes(tenantId: string) {
  const { notes } = await listNotes(ports.db, { tenantId, status: 'active', limit: 100 });
  return notes.filter((n) => n.scope.level === 'session');
}

describe('a session-scoped note replayed on a later night', () => {
  it('stays one note', async () => {
    const tenantId = freshTenantId('session-notes');
    await archiveRecords(ports, correctedSession(tenantId));
    await consolidate(ports, tenantId, 'night-1');
    const first = await sessionNotes(tenantId);
    expect(first.map((n) => n.scope.key)).toEqual(['session-refund-1']);

    await consolidate(ports, tenantId, 'night-2');
    await consolidate(ports, tenantId, 'night-3');
    const later = await sessionNotes(tenantId);
    expect(later.map((n) => n.noteId)).toEqual(first.map((n) => n.noteId));
  });
});
