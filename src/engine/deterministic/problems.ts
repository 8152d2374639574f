import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteKind } from '../../contracts/note.ts';
import { create, taskScope } from './proposal.ts';

/**
 * Lessons from multi-agent runs (policies/attribution-problems.ts, attribution-answers.ts): a
 * problem one agent reported about another's step, as the agent reported it; and the wrong
 * answer a failed run ended with, quoted where it was first stated, as an answer the run adopted
 * unchecked. Both are failure causes about how the task went, so they are scoped to its task type.
 */
export const reportedProblem = (f: Finding, ep: Episode): Proposal =>
  lesson(f, ep, 'failure_cause', 'reported', 'report');

export const uncheckedAnswer = (f: Finding, ep: Episode): Proposal => {
  // Cited: the step that first stated the answer, the conclusion when that was a later step, the outcome.
  const adopted = f.evidence.filter((e) => e.record.kind !== 'task_outcome').length > 1;
  const attribute = adopted
    ? 'ended a failed run on an answer adopted unchecked:'
    : 'ended a failed run on an answer no earlier step gave:';
  return lesson(f, ep, 'failure_cause', attribute, 'statement');
};

function lesson(
  f: Finding,
  ep: Episode,
  kind: NoteKind,
  attribute: string,
  template: 'report' | 'statement',
): Proposal {
  return create(f, ep, {
    kind,
    sourceKind: 'inference',
    scope: taskScope(ep),
    structure: {
      subject: { type: 'agent', id: ep.agentId },
      attribute,
      value: f.summary,
      polarity: 'positive',
      conditions: [],
      exclusive: false,
      template,
    },
  });
}
