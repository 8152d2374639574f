import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteKind } from '../../contracts/note.ts';
import { create, taskScope } from './proposal.ts';

/**
 * Lessons from multi-agent runs (policies/attribution-problems.ts): a problem one agent reported
 * about another's step, quoted as the agent reported it (a failure cause), and the approach of a
 * failed run that showed no visible slip (a strategy to revise). Both are about how the task
 * went, so they are scoped to its task type.
 */
export const reportedProblem = (f: Finding, ep: Episode): Proposal => quoted(f, ep, 'failure_cause', 'reported');

export const failedApproach = (f: Finding, ep: Episode): Proposal =>
  quoted(f, ep, 'strategy', 'began a failed run with');

function quoted(f: Finding, ep: Episode, kind: NoteKind, attribute: string): Proposal {
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
      template: 'report',
    },
  });
}
