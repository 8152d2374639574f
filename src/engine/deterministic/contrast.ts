import type { Episode, Finding, Proposal, TrialContrast } from '../../contracts/episode.ts';
import type { NoteKind } from '../../contracts/note.ts';
import type { NoteStructure } from '../../contracts/note-structure.ts';
import type { TemplateName } from '../../../policies/note-templates.ts';
import { create, taskScope } from './proposal.ts';

/**
 * A lesson from a failed run set against successful runs of the same task type, scoped to that
 * task type: the tool they call and it skipped, the tool it called and they did not, the
 * arguments that differed, the confirmation it did not ask for.
 */

const SHAPES: Record<TrialContrast['kind'], { kind: NoteKind; template: TemplateName; attribute: string }> = {
  omitted_tool: { kind: 'strategy', template: 'contrast_omitted', attribute: 'calls' },
  extra_tool: { kind: 'failure_cause', template: 'contrast_extra', attribute: 'should not call' },
  other_arguments: { kind: 'failure_cause', template: 'contrast_arguments', attribute: 'calls with' },
  skipped_confirmation: { kind: 'strategy', template: 'contrast_confirmation', attribute: 'asks to confirm before' },
};

export function trialContrast(f: Finding, ep: Episode): Proposal {
  const contrast: TrialContrast = f.contrast ?? { kind: 'omitted_tool', tool: f.tool ?? 'a tool' };
  const shape = SHAPES[contrast.kind];
  const arguments_ = contrast.kind === 'other_arguments';
  const call = arguments_ ? contrast.failedArgs : contrast.args;
  const structure: NoteStructure = {
    // The lesson is about how runs of the task type go (its claim opens "In <task type> tasks"), not about one agent.
    subject: ep.taskType ? { type: 'entity', id: ep.taskType } : { type: 'agent', id: ep.agentId },
    attribute: shape.attribute,
    value: call ? `${contrast.tool} with ${phrase(call)}` : contrast.tool,
    ...(arguments_ ? { contrast: phrase(contrast.successfulArgs) } : {}),
    // The arguments a task needs are one set at a time; which tools to call accumulate.
    exclusive: arguments_,
    polarity: 'positive',
    conditions: [
      ...(ep.taskType ? [{ field: 'task_type', op: 'eq' as const, value: ep.taskType }] : []),
      ...(call ? [{ field: 'tool', op: 'eq' as const, value: contrast.tool }] : []),
    ],
    template: shape.template,
  };
  return create(f, ep, { kind: shape.kind, sourceKind: 'inference', scope: taskScope(ep), structure });
}

/** Longest argument value written into a contrast, in characters. @default 80 */
export const MAX_CONTRAST_ARG_CHARS = 80;

function phrase(args: Record<string, string> | undefined): string {
  return Object.entries(args ?? {})
    .map(([k, v]) => `${k} ${v.length > MAX_CONTRAST_ARG_CHARS ? `${v.slice(0, MAX_CONTRAST_ARG_CHARS)}…` : v}`)
    .join(', ');
}

/**
 * A failed run that called no tool (policies/attribution-no-tool.ts), scoped to its task type
 * like a contrast: what the agent told the user instead of looking it up.
 */
export function noToolRun(f: Finding, ep: Episode): Proposal {
  const reply = f.noTool ?? { reply: 'declined' as const, value: f.summary };
  const declined = reply.reply === 'declined';
  const structure: NoteStructure = {
    subject: ep.taskType ? { type: 'entity', id: ep.taskType } : { type: 'agent', id: ep.agentId },
    attribute: declined ? 'told the user it' : 'kept asking for',
    value: reply.value,
    exclusive: false,
    polarity: reply.denied ? 'negative' : 'positive',
    conditions: ep.taskType ? [{ field: 'task_type', op: 'eq', value: ep.taskType }] : [],
    template: declined ? 'no_tool_declined' : 'no_tool_insisted',
  };
  return create(f, ep, { kind: 'failure_cause', sourceKind: 'inference', scope: taskScope(ep), structure });
}
