import type { ArchivedRecord, Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteCondition, NoteStructure } from '../../contracts/note-structure.ts';
import { create, taskScope } from './proposal.ts';

/**
 * Lessons from tools: what failed, with which arguments, what the tool demanded, and what worked
 * when the call was retried. A tool error is a lesson even when nothing worked afterwards.
 */

/** Arguments named in a lesson at most; the ones that differ from a working retry come first. @default 4 */
export const MAX_ARGS_IN_LESSON = 4;
/** Longest argument value written into a lesson, in characters. @default 60 */
export const MAX_ARG_CHARS = 60;

const DEMAND = /\b(?:needs?|requires?|required|must (?:have|include|be)|expected|missing)\b:?\s+(.+?)[.;]?$/i;
const THRESHOLD = /\b(over|above|more than|exceeding|under|below|less than|at least|at most)\s+([$€£]?\d[\d,.]*)/i;
const TIMEOUT = /\btim(?:e|ed) ?out\b|\btimeout\b/i;
/**
 * A fault of the service, not of the call: overload, an outage, a rate limit. Its arguments say
 * nothing about it, and it is over once the service is back.
 */
const TRANSIENT =
  /\b(?:HTTP\s*)?(?:502|503|504|429)\b|service unavailable|temporarily unavailable|bad gateway|gateway time-?out|too many requests|rate limit|try again later|connection (?:reset|refused)/i;
/** How long a transient fault is worth knowing about after it was seen. @default 1 day */
export const TRANSIENT_FAULT_TTL_MS = 86_400_000;
const THRESHOLD_OPS: Record<string, NoteCondition['op']> = {
  over: 'gt',
  above: 'gt',
  'more than': 'gt',
  exceeding: 'gt',
  under: 'lt',
  below: 'lt',
  'less than': 'lt',
  'at least': 'gte',
  'at most': 'lte',
};

export function toolError(f: Finding, ep: Episode): Proposal {
  const [call, error, retry] = f.evidence.filter((e) => e.record.kind !== 'tool_result');
  const tool = f.tool ?? 'a tool';
  // "error: calendar.create: service unavailable" → "service unavailable": the subject names the tool.
  const said = (error?.record.text ?? f.summary).replace(/^\s*error:?\s*/i, '').trim();
  const message = said.startsWith(`${tool}:`) ? said.slice(tool.length + 1).trim() : said;
  const seen = error?.record.observedAt ?? f.evidence.at(-1)?.record.observedAt;
  if (TRANSIENT.test(message) && seen) return transientFault(f, ep, tool, message, seen);
  const failedArgs = argsOf(call);
  const retryArgs = retry ? argsOf(retry) : undefined;
  const shown = retryArgs ? differing(failedArgs, retryArgs) : primitive(failedArgs);
  const base = {
    subject: { type: 'tool' as const, id: tool },
    polarity: 'positive' as const,
    conditions: shown.map(([k, v]) => ({ field: `arg.${k}`, op: 'eq' as const, value: v })),
  };
  const worked = retryArgs ? phrase(shown.map(([k]) => [k, retryArgs[k]] as const)) : undefined;
  const structure = lessonOf(message, shown, worked, failedArgs, base);
  const kind = structure.template === 'tool_requires' ? 'constraint' : 'tool_behavior';
  return create(f, ep, { kind, sourceKind: 'tool_fact', scope: { level: 'agent', key: ep.agentId }, structure });
}

/**
 * "calendar.create fails with service unavailable (HTTP 503)", valid for a day from when it was
 * seen: an agent told this morning can wait or warn, and tomorrow the note no longer competes
 * with lessons that last. No arguments: they did not cause it.
 */
function transientFault(f: Finding, ep: Episode, tool: string, message: string, at: string): Proposal {
  const until = new Date(Date.parse(at) + TRANSIENT_FAULT_TTL_MS).toISOString();
  return create(f, ep, {
    kind: 'tool_behavior',
    sourceKind: 'tool_fact',
    scope: { level: 'agent', key: ep.agentId },
    structure: {
      subject: { type: 'tool', id: tool },
      polarity: 'positive',
      conditions: [],
      attribute: 'fails with',
      value: message,
      time: { at, until },
      exclusive: false,
      template: 'tool_error',
    },
  });
}

function lessonOf(
  message: string,
  shown: ReadonlyArray<readonly [string, unknown]>,
  worked: string | undefined,
  failedArgs: Record<string, unknown>,
  base: Pick<NoteStructure, 'subject' | 'polarity' | 'conditions'>,
): NoteStructure {
  const contrast = worked ? { contrast: worked } : {};
  if (TIMEOUT.test(message) && shown.length > 0)
    return {
      ...base,
      attribute: 'times out with',
      value: phrase(shown),
      ...contrast,
      exclusive: true,
      template: 'tool_timeout',
    };
  const demand = DEMAND.exec(message)?.[1];
  if (demand) {
    const threshold = THRESHOLD.exec(message);
    const numeric = Object.entries(failedArgs).find(([, v]) => typeof v === 'number')?.[0] ?? 'amount';
    const conditions: NoteCondition[] = threshold
      ? [
          {
            field: `arg.${numeric}`,
            op: THRESHOLD_OPS[(threshold[1] as string).toLowerCase()] ?? 'gt',
            value: threshold[2] as string,
          },
        ]
      : [];
    const named = !threshold && shown.length === 1 ? `${shown[0]?.[0]} as ` : '';
    return {
      ...base,
      conditions,
      attribute: 'requires',
      value: `${named}${demand}`,
      exclusive: true,
      template: 'tool_requires',
    };
  }
  const args = phrase(shown);
  return {
    ...base,
    attribute: 'fails with',
    value: args ? `${args}: ${message}` : message,
    ...contrast,
    exclusive: false,
    template: 'tool_error',
  };
}

/** Prose a tool returned, kept as it is: the tool said it, and validation checks it for injected instructions. */
export function toolContent(f: Finding, ep: Episode): Proposal {
  return create(f, ep, {
    kind: 'fact',
    sourceKind: 'tool_fact',
    scope: taskScope(ep),
    structure: {
      subject: f.tool ? { type: 'tool', id: f.tool } : { type: 'entity', id: ep.taskType ?? ep.agentId },
      attribute: 'returned',
      value: f.summary.trim(),
      polarity: 'positive',
      conditions: [],
      exclusive: false,
      template: 'report',
    },
  });
}

function argsOf(r: ArchivedRecord | undefined): Record<string, unknown> {
  const args = (r?.record.payload as { args?: unknown } | undefined)?.args;
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

const isPrimitive = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function primitive(args: Record<string, unknown>): Array<[string, string | number | boolean]> {
  return Object.entries(args)
    .filter((e): e is [string, string | number | boolean] => isPrimitive(e[1]) && String(e[1]).length <= MAX_ARG_CHARS)
    .slice(0, MAX_ARGS_IN_LESSON);
}

function differing(a: Record<string, unknown>, b: Record<string, unknown>): Array<[string, string | number | boolean]> {
  return primitive(a).filter(([k, v]) => b[k] !== v);
}

/** `pageSize 1000, date 2026-12-03`. */
function phrase(args: ReadonlyArray<readonly [string, unknown]>): string {
  return args.map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}
