import type { NoteCondition, NoteStructure } from '../src/contracts/note-structure.ts';
import type { NoteKind } from '../src/contracts/note.ts';
import { formatMention } from './dates.ts';

/**
 * A note's claim rendered from its structure, one template per shape of lesson, so the text
 * agents read and the fields validation and reconciliation compare cannot drift apart. The
 * template's name is stored in `structure.template`.
 */

export const TEMPLATES = [
  'statement',
  'report',
  'preference',
  'directive',
  'correction',
  'tool_timeout',
  'tool_requires',
  'tool_error',
  'contrast_omitted',
  'contrast_extra',
  'contrast_arguments',
  'contrast_confirmation',
  'no_tool_declined',
  'no_tool_insisted',
  'episode_summary',
] as const;
export type TemplateName = (typeof TEMPLATES)[number];

/**
 * Words the templates add around the structure's fields. They say how the fields relate, not
 * what the records show, so a check of the claim against its evidence leaves them out.
 */
export const TEMPLATE_VOCABULARY: ReadonlySet<string> = new Set(
  (
    'prefers over wants assistant rather than does not corrected times out with works requires fails ' +
    'successful failed runs run call called calls skipped ask asking confirm confirmation before without ' +
    'used other arguments session talked tasks task in tool agent told kept made change ended'
  ).split(' '),
);

type Renderer = (s: NoteStructure) => string;

const RENDERERS: Record<TemplateName, Renderer> = {
  statement: (s) => `${toldBy(s)}${s.subject.id} ${verbPhrase(s)} ${s.value}`,
  report: (s) => s.value,
  preference: (s) =>
    negative(s)
      ? `${s.subject.id} does not want ${s.value}`
      : `${s.subject.id} prefers ${s.value}${s.contrast ? ` over ${s.contrast}` : ''}`,
  directive: (s) =>
    `${s.subject.id} ${negative(s) ? 'does not want' : 'wants'} the assistant to ${s.value}${s.contrast ? ` rather than ${s.contrast}` : ''}`,
  correction: (s) => `${s.subject.id} corrected the assistant: ${s.value}`,
  tool_timeout: (s) => `${s.subject.id} times out with ${s.value}${s.contrast ? `; ${s.contrast} works` : ''}`,
  tool_requires: (s) => `${s.subject.id}${conditionPhrase(s.conditions)} requires ${s.value}`,
  tool_error: (s) => `${s.subject.id} fails with ${s.value}${s.contrast ? `; ${s.contrast} works` : ''}`,
  contrast_omitted: (s) => `In ${taskOf(s)} tasks, successful runs call ${s.value}; a failed run skipped it`,
  contrast_extra: (s) => `In ${taskOf(s)} tasks, a failed run called ${s.value}; successful runs did not`,
  contrast_arguments: (s) =>
    `In ${taskOf(s)} tasks, a failed run called ${s.value}; successful runs used ${s.contrast ?? 'other arguments'}`,
  contrast_confirmation: (s) =>
    `In ${taskOf(s)} tasks, successful runs ask the user to confirm before ${s.value}; a failed run called it without asking`,
  // Negative: what the agent said it could not do ("can not provide X"); positive: how it said so ("was unable to X").
  no_tool_declined: (s) =>
    `In ${taskOf(s)} tasks, a failed run called no tool; the agent told the user it ${negative(s) ? 'can not ' : ''}${s.value}`,
  no_tool_insisted: (s) =>
    `In ${taskOf(s)} tasks, a failed run called no tool; the agent ${negative(s) ? 'did not keep' : 'kept'} asking for the ${s.value} the user did not have`,
  episode_summary: (s) => s.value,
};

/** Default template of a kind, for a structure that names none. */
const KIND_TEMPLATE: Record<NoteKind, TemplateName> = {
  preference: 'preference',
  fact: 'statement',
  constraint: 'tool_requires',
  tool_behavior: 'tool_error',
  strategy: 'contrast_omitted',
  failure_cause: 'contrast_arguments',
  episode_summary: 'episode_summary',
};

/** The claim for a structure; ends with a full stop like the sentences agents read. */
export function renderClaim(kind: NoteKind, structure: NoteStructure): string {
  const template = isTemplate(structure.template) ? structure.template : KIND_TEMPLATE[kind];
  const text = RENDERERS[template](structure).replace(/\s+/g, ' ').trim();
  const sentence = text.charAt(0).toUpperCase() === text.charAt(0) ? text : capitalizeUnlessId(text);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** The structure with its template named, so a reader knows how claim and fields relate. */
export function withTemplate(structure: NoteStructure, template: TemplateName): NoteStructure {
  return { ...structure, template };
}

const isTemplate = (name: string | undefined): name is TemplateName =>
  name !== undefined && (TEMPLATES as readonly string[]).includes(name);

const negative = (s: NoteStructure) => s.polarity === 'negative';

/** "On or before 3 May 2023, " for an event bounded by the day it was told (`time.by`), else nothing. */
function toldBy(s: NoteStructure): string {
  return s.time?.by ? `On or before ${formatMention({ at: new Date(s.time.by), precision: 'day' })}, ` : '';
}

/** "is" → "is not", "really does want" → "really does not want": "not" follows the auxiliary; negatives always carry one. */
function verbPhrase(s: NoteStructure): string {
  if (!negative(s)) return s.attribute;
  const words = s.attribute.split(' ');
  const aux = words.findIndex((w) => AUXILIARY.test(w));
  const at = aux < 0 ? 0 : aux;
  return [...words.slice(0, at + 1), 'not', ...words.slice(at + 1)].join(' ');
}

const AUXILIARY = /^(is|are|was|were|has|have|had|will|would|can|could|should|might|must|may|shall|do|does|did)$/i;

const OP_WORDS: Record<NoteCondition['op'], string> = {
  gt: 'over',
  gte: 'of at least',
  lt: 'under',
  lte: 'of at most',
  eq: '',
  ne: 'not',
};

/** Argument conditions as words: `arg.amount gt $100` → " over $100", `arg.pageSize eq 1000` → " with pageSize 1000". */
function conditionPhrase(conditions: readonly NoteCondition[] | undefined): string {
  const args = (conditions ?? []).filter((c) => c.field.startsWith('arg.'));
  const parts = args.map((c) =>
    c.op === 'eq' || c.op === 'ne'
      ? `with ${c.field.slice(4)} ${c.op === 'ne' ? 'not ' : ''}${c.value}`
      : `${OP_WORDS[c.op]} ${c.value}`,
  );
  return parts.length > 0 ? ` ${parts.join(' and ')}` : '';
}

function taskOf(s: NoteStructure): string {
  return String(s.conditions?.find((c) => c.field === 'task_type')?.value ?? 'these');
}

/** Ids like `crm.export` or `u-dan` keep their case; prose starts with a capital. */
function capitalizeUnlessId(text: string): string {
  const first = text.split(' ')[0] ?? '';
  return /[._-]|\d/.test(first) ? text : text.charAt(0).toUpperCase() + text.slice(1);
}
