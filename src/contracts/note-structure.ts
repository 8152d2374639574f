import { z } from 'zod';
import { IsoDateTime } from './ids.ts';

/**
 * What a note is about, in fields a machine can check and compare; the claim is rendered from
 * it and stays the text agents read. Validation checks each field against the cited records
 * (the subject is the speaker or is named there, the value occurs there, the polarity agrees,
 * the time agrees with `observedAt`), and reconciliation compares notes by slot (same subject
 * and attribute): the same value reinforces, a different one supersedes.
 */

/** Who or what the note is about. */
export const SUBJECT_TYPES = ['user', 'agent', 'tool', 'entity'] as const;
export const NoteSubject = z.object({
  type: z.enum(SUBJECT_TYPES),
  /** The user or agent id, the tool name (`crm.export`), or an entity's name (`Caroline`). */
  id: z.string().min(1).max(256),
});
export type NoteSubject = z.infer<typeof NoteSubject>;

/** When the note applies: a task type, a tool, an argument's value or range. */
export const CONDITION_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export const NoteCondition = z.object({
  /** `task_type`, `tool`, or `arg.<name>` for an argument of the tool call. */
  field: z.string().min(1).max(128),
  op: z.enum(CONDITION_OPS),
  value: z.union([z.string().max(256), z.number(), z.boolean()]),
});
export type NoteCondition = z.infer<typeof NoteCondition>;

/** When the fact held or happens, absolute, resolved from the evidence's `observedAt`. */
export const NoteTime = z.object({
  /** The day or instant the note speaks of (`7 May 2023`, the appointment's date). */
  at: IsoDateTime.optional(),
  /** After this instant the note no longer applies (a plan after its date); it becomes the version's `validUntil`. */
  until: IsoDateTime.optional(),
  /**
   * The event happened on or before this instant: a past event told with no time of its own is
   * bounded by the day it was told. A bound, not a day: two tellings of one event on two days
   * are still one event.
   */
  by: IsoDateTime.optional(),
  /**
   * The words of the record the time was read from (`next Tuesday`), kept for validation; `as of`
   * for a state a statement told as holding on the day it was said (policies/statements.ts).
   */
  source: z.string().max(200).optional(),
});
export type NoteTime = z.infer<typeof NoteTime>;

export const NoteStructure = z.object({
  subject: NoteSubject,
  /** The attribute or relation, a short lower-case phrase: `prefers`, `requires`, `fails with`, `went to`. */
  attribute: z.string().min(1).max(128),
  /** What the subject has, does or demands: `aisle seats`, `a manager approval id`. */
  value: z.string().min(1).max(1000),
  /** What the value is preferred over or what works instead: `window seats`, `pageSize 200`. */
  contrast: z.string().min(1).max(1000).optional(),
  /**
   * The subject has one value of this attribute at a time (a home city, a choice between
   * options, a limit a tool enforces): a different value in the same slot supersedes the older
   * one. Absent or false: values accumulate (places someone went to, events on different days).
   */
  exclusive: z.boolean().optional(),
  /** `negative`: the subject does not have, do or want the value. */
  polarity: z.enum(['positive', 'negative']).default('positive'),
  conditions: z.array(NoteCondition).max(8).default([]),
  time: NoteTime.optional(),
  /** The template the claim was rendered with, so a reader knows how claim and fields relate. */
  template: z.string().min(1).max(64).optional(),
});
export type NoteStructure = z.input<typeof NoteStructure>;
export type ParsedNoteStructure = z.output<typeof NoteStructure>;

/** Lower-cased, whitespace-collapsed: the form in which slots and values compare. */
export function normalizePhrase(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/\s+/g, ' ')
      // "after 8 am" and "after 8am" are one value.
      .replace(/(\d) (am|pm)\b/g, '$1$2')
      .trim()
  );
}

/**
 * The slot a note fills: notes of one slot speak of the same thing, so at most one of them is
 * active with a given value at a time. The conditions are part of the slot (a page size that
 * times out for one tool says nothing of another).
 */
export function slotKey(s: NoteStructure): string {
  // Recall compares the slots of every pair of candidate notes: each structure's key is built once.
  let key = slotKeys.get(s);
  if (key === undefined) {
    key = slotKeyOf(s);
    slotKeys.set(s, key);
  }
  return key;
}

const slotKeys = new WeakMap<NoteStructure, string>();

function slotKeyOf(s: NoteStructure): string {
  const conditions = (s.conditions ?? [])
    .map((c) => `${normalizePhrase(c.field)}${c.op}${normalizePhrase(String(c.value))}`)
    .sort()
    .join('&');
  return [s.subject.type, normalizePhrase(s.subject.id), normalizePhrase(s.attribute), conditions].join('|');
}

/** Whether two structures say the same thing (same slot, value and polarity), however their claims are worded. */
export function sameStatement(a: NoteStructure, b: NoteStructure): boolean {
  return (
    slotKey(a) === slotKey(b) &&
    normalizePhrase(a.value) === normalizePhrase(b.value) &&
    (a.polarity ?? 'positive') === (b.polarity ?? 'positive')
  );
}
