import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../../policies/attribution.ts';
import { reportedProblem } from '../../../policies/attribution-problems.ts';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { createDeterministicEngine } from '../../../src/engine/deterministic.ts';
import { archived, toEpisodes } from '../../helpers/episodes.ts';

type Step = {
  role?: string;
  kind?: 'user_message' | 'agent_message' | 'error' | 'tool_result' | 'task_outcome';
  text?: string;
};

/** A logged run: one record per step, a minute apart, all of task `run-1`. */
function run(steps: Step[]) {
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
          ? { source: 'system' as const, outcome: { status: 'failure' as const, reward: 0 }, tags: ['failure'] }
          : {}),
        ...(s.text !== undefined ? { text: s.text } : {}),
      };
    }),
  );
}

async function lessonsOf(records: ReturnType<typeof run>) {
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
  return {
    findings,
    notes: proposals
      .filter((p) => validateProposal(p, 'logs', resolved).verdict === 'accept')
      .map((p) => ({
        kind: p.content.kind,
        claim: p.content.claim,
        steps: p.content.evidence.map((e) => stepOf.get(e.recordId)),
      })),
  };
}

const task = {
  kind: 'user_message' as const,
  text: 'How many studio albums did Mercedes Sosa publish between 2000 and 2009?',
};

describe('problems one agent reports about another agent’s step', () => {
  it('blames the other agent’s step the report answers, in a lesson that passes validation', async () => {
    const { notes } = await lessonsOf(
      run([
        task,
        { role: 'DataAnalysis_Expert', text: 'I will scrape the discography table from the Wikipedia page.' },
        {
          role: 'Verification_Expert',
          text: 'It appears that the function did not return any data. The table is not in that format.',
        },
        { kind: 'task_outcome' },
      ]),
    );
    expect(notes).toContainEqual({
      kind: 'failure_cause',
      claim: 'It appears that the function did not return any data.',
      steps: [1, 2],
    });
  });

  it('reads a planner’s ledger that says no progress is being made, and blames the worker step before it', async () => {
    const ledger = JSON.stringify({
      is_request_satisfied: { reason: 'The list is not complete yet.', answer: false },
      is_progress_being_made: { reason: 'The last search returned an unrelated page about dojos.', answer: false },
    });
    const { notes } = await lessonsOf(
      run([
        { kind: 'user_message', text: 'Where can I take martial arts classes near the New York Stock Exchange?' },
        { role: 'Orchestrator (-> WebSurfer)', text: 'Please search for martial arts schools near the exchange.' },
        { role: 'WebSurfer', text: "I clicked 'dojos.info' and read the page about dojos in New York." },
        { role: 'Orchestrator (thought)', text: `Updated Ledger: ${ledger}` },
        { kind: 'task_outcome' },
      ]),
    );
    expect(notes).toContainEqual({
      kind: 'failure_cause',
      claim: 'The last search returned an unrelated page about dojos.',
      steps: [2, 3],
    });
  });

  it('finds nothing to blame in a run with one agent, however it words its troubles', async () => {
    const { findings } = await lessonsOf(
      run([
        { kind: 'user_message', text: 'Please refund order 1182.' },
        { role: 'assistant', text: 'I looked up order 1182.' },
        { role: 'assistant', text: 'I am unable to refund this order: it was not delivered yet.' },
        { kind: 'task_outcome' },
      ]),
    );
    expect(findings.map((f) => f.type)).not.toContain('reported_problem');
  });

  it('takes the report from the opening of a message, not from code further down', () => {
    expect(reportedProblem(`Here is the script.\n${'x = 1\n'.repeat(150)}except ValueError: print("error")`)).toBe(
      undefined,
    );
  });
});
