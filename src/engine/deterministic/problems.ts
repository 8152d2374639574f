import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import { create, taskScope } from './proposal.ts';

/**
 * Lessons from multi-agent runs (policies/attribution-problems.ts): a problem one agent reported
 * about another's step, quoted as the agent reported it, and the approach of a failed run that
 * showed no visible slip. Both are about how the task went, so they are scoped to its task type.
 */
export function reportedProblem(f: Finding, ep: Episode): Proposal {
  return create(f, ep, {
    kind: 'failure_cause',
    sourceKind: 'inference',
    scope: taskScope(ep),
    structure: {
      subject: { type: 'agent', id: ep.agentId },
      attribute: 'reported',
      value: f.summary,
      polarity: 'positive',
      conditions: [],
      exclusive: false,
      template: 'report',
    },
  });
}

export function failedApproach(f: Finding, ep: Episode): Proposal {
  return create(f, ep, {
    kind: 'strategy',
    sourceKind: 'inference',
    scope: taskScope(ep),
    structure: {
      subject: { type: 'agent', id: ep.agentId },
      attribute: 'began a failed run with',
      value: f.summary,
      polarity: 'positive',
      conditions: [],
      exclusive: false,
      template: 'report',
    },
  });
}
