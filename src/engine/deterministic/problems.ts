import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteKind } from '../../contracts/note.ts';
import { create, taskScope } from './proposal.ts';

/**
 * A lesson from a multi-agent run (policies/attribution-problems.ts): a problem one agent
 * reported about another's step, as the agent reported it (a failure cause). It is about how the
 * task went, so it is scoped to its task type.
 */
export const reportedProblem = (f: Finding, ep: Episode): Proposal => reported(f, ep, 'failure_cause', 'reported');

function reported(f: Finding, ep: Episode, kind: NoteKind, attribute: string): Proposal {
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
