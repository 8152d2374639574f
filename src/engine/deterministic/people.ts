import { PREFERENCE_MARKERS } from '../../../policies/attribution.ts';
import {
  absoluteTimes,
  datedStatement,
  EXCLUSIVE_ATTRIBUTES,
  splitStatement,
  tellsPastEvent,
} from '../../../policies/statements.ts';
import { sentences } from '../../../policies/text.ts';
import { toThirdPerson, type Voices } from '../../../policies/third-person.ts';
import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { NoteStructure } from '../../contracts/note-structure.ts';
import { create, sessionScope, speakerOf, taskScope, userScope } from './proposal.ts';

/**
 * Notes from what people said, in the third person with the speaker's name or id and absolute
 * dates: a statement about themselves, a preference, a correction of the assistant.
 */

/**
 * A statement is about its speaker and holds for them, told to a person or to an agent: what is
 * about one task only (a choice, a wish, a request) never becomes a statement (see
 * `policies/statement-selection.ts`), so the same fact told in two sessions is one note.
 */
export function statedFact(f: Finding, ep: Episode): Proposal {
  return create(f, ep, {
    kind: 'fact',
    sourceKind: 'user_statement',
    scope: userScope(f, ep),
    structure: statement(f.summary, voicesOf(f, ep), observedAt(f)),
  });
}

export function statedPreference(
  f: Finding,
  ep: Episode,
  sourceKind: 'user_requirement' | 'user_correction' = 'user_requirement',
): Proposal {
  return create(f, ep, {
    kind: 'preference',
    sourceKind,
    scope: userScope(f, ep),
    structure: preference(f.summary, voicesOf(f, ep), observedAt(f)),
  });
}

/**
 * A correction states what is true. About this episode only ("No, it was moved to 4pm") it
 * holds for the session; a general statement ("the billing API returns amounts in cents")
 * holds for the task type; "I asked for an aisle seat, not a window seat" is a preference.
 */
export function correction(f: Finding, ep: Episode): Proposal {
  const text = generalPart(f.summary);
  if (PREFERENCE_MARKERS.test(text)) return statedPreference({ ...f, summary: text }, ep, 'user_correction');
  const voices = voicesOf(f, ep);
  const { text: absolute, time } = absoluteTimes(text, observedAt(f));
  const general = !EPISODE_SPECIFIC.test(absolute) && !time ? generalStatement(absolute) : undefined;
  if (general)
    return create(f, ep, { kind: 'fact', sourceKind: 'user_correction', scope: taskScope(ep), structure: general });
  const value = lowerFirst(
    sentences(absolute)
      .map((s) => toThirdPerson(s, voices))
      .join(' '),
  );
  return create(f, ep, {
    kind: 'fact',
    sourceKind: 'user_correction',
    scope: sessionScope(ep),
    structure: {
      subject: { type: 'user', id: voices.speaker },
      attribute: 'corrected',
      value,
      exclusive: CLOCK_OR_DAY.test(absolute) || time !== undefined,
      polarity: 'positive',
      conditions: [],
      ...(time ? { time } : {}),
      template: 'correction',
    },
  });
}

/** Drops the "that is wrong" part and episode-specific answers, keeping the general statement. */
export function generalPart(correctionText: string): string {
  const parts = sentences(correctionText)
    .map((s) => s.replace(/^(no|nope|wrong|that('s| is) (wrong|not right|incorrect|not what i asked))[,:.!]?\s*/i, ''))
    .filter((s) => s.length > 0);
  const general = parts.filter((s) => !/^(the|your) (total|answer|result|sum)\b/i.test(s));
  const chosen = (general.length > 0 ? general : parts).join(' ');
  return chosen.charAt(0).toUpperCase() + chosen.slice(1);
}

/** Words that tie a correction to this episode: a pronoun subject, a clock time, a change of plan. */
const EPISODE_SPECIFIC =
  /^(it|this|that|they|he|she|you|we|i)\b|\b(\d{1,2}(:\d{2})?\s?(am|pm)|\d{1,2}:\d{2}|moved|rescheduled|postponed|cancelled|canceled|instead)\b/i;
const CLOCK_OR_DAY = /\b(\d{1,2}(:\d{2})?\s?(am|pm)|\d{1,2}:\d{2})\b/i;
const SUBORDINATOR = /^(since|because|as|now that|actually|in fact),?\s+/i;
const VERB_AT =
  /^(is|are|was|were|has|have|had|does|do|did|can|will|must|should|needs?|requires?|returns?|uses?|takes?|accepts?|expects?|sends?|gives?|charges?|costs?|pays?|works?|runs?)$/i;

/** "The billing API returns amounts in cents." → the billing API / returns / amounts in cents. */
function generalStatement(text: string): NoteStructure | undefined {
  const sentence = text.replace(SUBORDINATOR, '').replace(/[.!]+$/, '');
  const words = sentence.split(/\s+/);
  const verb = words.findIndex((w, i) => i > 0 && VERB_AT.test(w));
  if (verb < 1) return undefined;
  const subject = words.slice(0, verb).join(' ');
  const parts = splitStatement(sentence, subject);
  if (!parts) return undefined;
  return {
    subject: { type: 'entity', id: subject },
    ...parts,
    exclusive: true,
    conditions: [],
    template: 'statement',
  };
}

/** A speaker's statement: "Caroline went to a LGBTQ support group on 7 May 2023 …". */
export function statement(text: string, voices: Voices, at: string): NoteStructure {
  const rewritten = sentences(text)
    .map((s) => toThirdPerson(s, voices))
    .join(' ');
  const { text: absolute, time } = datedStatement(rewritten, at);
  const parts = splitStatement(absolute, voices.speaker);
  // A past event told with no time happened by the day it was told: the note says so.
  const told = time ?? (parts && tellsPastEvent(parts) ? { by: at } : undefined);
  const base = {
    subject: { type: 'user' as const, id: voices.speaker },
    conditions: [],
    ...(told ? { time: told } : {}),
  };
  return parts
    ? { ...base, ...parts, exclusive: EXCLUSIVE_ATTRIBUTES.test(parts.attribute), template: 'statement' }
    : { ...base, attribute: 'said', value: absolute, polarity: 'positive', exclusive: false, template: 'report' };
}

const PREFER = /\bI(?:'d| would)? prefer (.+?)(?:,? (?:over|to|rather than|instead of) (.+))?$/i;
const ASKED_FOR = /\bI (?:asked for|want (?!to\b)) ?(.+?),? not (.+)$/i;
const INSTEAD = /\bI(?:'d| would)? (?:want|like) (.+?),? (?:instead of|rather than) (.+)$/i;
const DIRECTIVE = /^(?:please,?\s+)?((?:always|never|from now on)\b.+?)(?:,? (?:not|instead of|rather than) (.+))?$/i;

/** A preference between options, or a standing instruction; a liking ("I love painting") reads as a statement. */
export function preference(sentence: string, voices: Voices, at: string): NoteStructure {
  const s = sentence.trim().replace(/[.!]+$/, '');
  const third = (t: string) => lowerFirst(toThirdPerson(t, voices));
  const subject = { type: 'user' as const, id: voices.speaker };
  const choice = PREFER.exec(s) ?? ASKED_FOR.exec(s) ?? INSTEAD.exec(s);
  if (choice) {
    const contrast = choice[2] ? general(third(choice[2])) : undefined;
    return {
      subject,
      attribute: 'prefers',
      value: general(third(choice[1] as string)),
      ...(contrast ? { contrast } : {}),
      exclusive: true,
      polarity: 'positive',
      conditions: [],
      template: 'preference',
    };
  }
  const directive = DIRECTIVE.exec(s);
  if (directive) {
    return {
      subject,
      attribute: 'wants',
      value: third(directive[1] as string),
      ...(directive[2] ? { contrast: third(directive[2]) } : {}),
      exclusive: directive[2] !== undefined,
      polarity: 'positive',
      conditions: [],
      template: 'directive',
    };
  }
  return statement(sentence, voices, at);
}

/** "an aisle seat" → "aisle seats": a preference speaks of a kind of thing, not one of them. */
function general(phrase: string): string {
  const m = /^(?:a|an) ((?:[\w-]+ ){0,3})([a-z]+)$/i.exec(phrase.trim());
  if (!m) return phrase.trim();
  const noun = m[2] as string;
  const plural = /(s|sh|ch|x|z)$/i.test(noun)
    ? `${noun}es`
    : /[^aeiou]y$/i.test(noun)
      ? `${noun.slice(0, -1)}ies`
      : `${noun}s`;
  return `${m[1]}${plural}`;
}

/** The speaker, and whom "you" means: the one other person in the conversation, or the assistant. */
export function voicesOf(f: Finding, ep: Episode): Voices {
  const speaker = speakerOf(f, ep) ?? 'the user';
  const others = new Set(
    ep.records
      .filter((r) => r.record.kind === 'user_message' && r.record.userId && r.record.userId !== speaker)
      .map((r) => r.record.userId as string),
  );
  return { speaker, listener: others.size === 1 ? ([...others][0] as string) : 'the assistant' };
}

const observedAt = (f: Finding) => f.evidence.at(-1)?.record.observedAt ?? new Date(0).toISOString();
/** "It was moved" → "it was moved" inside a longer claim; names keep their capital. */
const lowerFirst = (t: string) =>
  /^(It|This|That|The|A|An|They|He|She|There|Always|Never|From)\b/.test(t) ? t.charAt(0).toLowerCase() + t.slice(1) : t;
