import type { NoteContent } from '../src/contracts/note.ts';
import type { NoteStructure } from '../src/contracts/note-structure.ts';
import { redact } from './redaction.ts';

/**
 * Redaction of what is stored beside notes: a note's claim and structure, the reason of a
 * change (audit log, run work), a rejected proposal. Identifiers (record ids, archive keys,
 * digests, scope keys, user and agent ids) are left as they are: the system reads them back.
 */

export const redactText = (text: string): string => redact(text).text;

export function redactStructure<S extends NoteStructure>(s: S): S {
  return {
    ...s,
    subject: s.subject.type === 'entity' ? { ...s.subject, id: redactText(s.subject.id) } : s.subject,
    attribute: redactText(s.attribute),
    value: redactText(s.value),
    ...(s.contrast !== undefined ? { contrast: redactText(s.contrast) } : {}),
    ...(s.conditions
      ? {
          conditions: s.conditions.map((c) => (typeof c.value === 'string' ? { ...c, value: redactText(c.value) } : c)),
        }
      : {}),
    ...(s.time?.source !== undefined ? { time: { ...s.time, source: redactText(s.time.source) } } : {}),
  };
}

export function redactContent<C extends Partial<Pick<NoteContent, 'claim' | 'structure'>>>(c: C): C {
  return {
    ...c,
    ...(c.claim !== undefined ? { claim: redactText(c.claim) } : {}),
    ...(c.structure !== undefined ? { structure: redactStructure(c.structure) } : {}),
  };
}

/** Keys whose values are identifiers the system wrote, never free text. */
const IDENTIFIER_KEYS: ReadonlySet<string> = new Set([
  'evidence',
  'noteId',
  'recordId',
  'objectKey',
  'contentHash',
  'supersededBy',
  'scope',
]);

/** Every string of a value redacted, except under identifier keys: for what is kept only to be read by people. */
export function redactLeaves(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 16 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactLeaves(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, IDENTIFIER_KEYS.has(k) ? v : redactLeaves(v, depth + 1)]),
  );
}
