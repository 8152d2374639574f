import { attributeEpisode } from '../../policies/attribution.ts';
import { validateProposal, type ResolvedRecord } from '../../policies/validation.ts';
import type { Proposal } from '../../src/contracts/episode.ts';
import type { RawRecordInput } from '../../src/contracts/raw-record.ts';
import { createDeterministicEngine } from '../../src/engine/deterministic.ts';
import { archived, toEpisodes } from './episodes.ts';

/**
 * Logged multi-agent runs for attribution tests: one record per step, the engine's lessons that
 * pass validation, and the steps each cites; its proposals and their verdicts, to tamper with.
 */

export type Step = {
  role?: string;
  kind?: 'user_message' | 'agent_message' | 'error' | 'tool_result' | 'task_outcome';
  text?: string;
  /** Of a task_outcome: failure unless said. */
  status?: 'success' | 'failure';
};

/** A logged run: one record per step, a minute apart, all of task `run-1`. */
export function run(steps: Step[]) {
  return archived(
    steps.map((s, i): RawRecordInput => {
      const kind = s.kind ?? 'agent_message';
      return {
        id: `01JD00000000000000000000${String(i).padStart(2, '0')}`,
        tenantId: 'logs',
        agentId: 'team',
        sessionId: 'run-1',
        taskId: 'run-1',
        kind,
        observedAt: `2024-01-01T09:${String(i).padStart(2, '0')}:00Z`,
        ...(kind === 'agent_message' ? { source: 'agent' as const, role: s.role ?? 'assistant' } : {}),
        ...(kind === 'user_message' ? { source: 'user' as const, userId: 'user' } : {}),
        ...(kind === 'error' || kind === 'tool_result'
          ? {
              source: 'tool' as const,
              payload: { tool: 'terminal' },
              ...(kind === 'error' ? { tags: ['failure'] } : {}),
            }
          : {}),
        ...(kind === 'task_outcome'
          ? s.status === 'success'
            ? { source: 'system' as const, outcome: { status: 'success' as const, reward: 1 } }
            : { source: 'system' as const, outcome: { status: 'failure' as const, reward: 0 }, tags: ['failure'] }
          : {}),
        ...(s.text !== undefined ? { text: s.text } : {}),
      };
    }),
  );
}

export async function lessonsOf(records: ReturnType<typeof run>) {
  const episodes = toEpisodes(records);
  const findings = episodes.flatMap((e) => attributeEpisode(e));
  const { proposals } = await createDeterministicEngine().propose({
    episodes,
    findings,
    activeNotes: [],
    now: new Date('2024-02-01T00:00:00Z'),
  });
  const resolved = new Map<string, ResolvedRecord>(
    records.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
  const stepOf = new Map(records.map((r, i) => [r.record.id, i]));
  const verdict = (p: Proposal) => validateProposal(p, 'logs', resolved);
  return {
    findings,
    proposals,
    verdict,
    notes: proposals
      .filter((p) => verdict(p).verdict === 'accept')
      .map((p) => ({
        kind: p.content.kind,
        claim: p.content.claim,
        steps: p.content.evidence.map((e) => stepOf.get(e.recordId)),
      })),
  };
}
