import {
  findTimeMentions,
  formatMention,
  hasRelativeTime,
  placedTimeMentions,
  type PlacedMention,
  type TimeMention,
} from '../../../policies/dates.ts';
import { recordText } from '../../../policies/text.ts';
import type { ArchivedRecord } from '../../contracts/episode.ts';
import type { NoteKind } from '../../contracts/note.ts';
import type { NoteStructure, NoteTime } from '../../contracts/note-structure.ts';
import type { StructureAnswer } from './answer.ts';

/**
 * The model's structure in the contract's form, its time absolute: a time the model read from the
 * records (`time.source`, "yesterday") is resolved against the observedAt of the cited record
 * that says it, whatever date the model computed; a date the model wrote is kept as an ISO
 * date-time (validation checks it against the records).
 */
export function toStructure(s: StructureAnswer, cited: readonly ArchivedRecord[]): NoteStructure {
  const time = s.time ? absoluteTime(s.time, cited) : undefined;
  return {
    subject: { type: s.subject.type, id: s.subject.id.trim() },
    attribute: s.attribute.trim(),
    value: s.value.trim(),
    ...(s.contrast ? { contrast: s.contrast.trim() } : {}),
    ...(s.exclusive !== undefined ? { exclusive: s.exclusive } : {}),
    polarity: s.polarity,
    conditions: s.conditions ?? [],
    ...(time ? { time } : {}),
  };
}

function absoluteTime(t: NonNullable<StructureAnswer['time']>, cited: readonly ArchivedRecord[]): NoteTime | undefined {
  const read = t.source ? mentionIn(t.source, cited) : undefined;
  const at = read ? read.at.toISOString() : isoDate(t.at);
  const until = isoDate(t.until);
  const time: NoteTime = {
    ...(at ? { at } : {}),
    ...(until ? { until } : {}),
    ...(t.source ? { source: t.source } : {}),
  };
  return Object.keys(time).length > 0 ? time : undefined;
}

/** `2023-05-07` → midnight UTC; an ISO date-time or other text is kept for validation to judge. */
function isoDate(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t}T00:00:00.000Z`;
  if (/^\d{4}-\d{2}-\d{2}T/.test(t)) return t;
  const written = /\d{4}/.test(t) ? findTimeMentions(t, new Date(0))[0] : undefined;
  return written ? written.at.toISOString() : t;
}

/** The first time in `words`, read against the cited record that contains them (else the latest cited). */
function mentionIn(words: string, cited: readonly ArchivedRecord[]): TimeMention | undefined {
  const needle = words.toLowerCase();
  const sayer =
    cited.find((c) => recordText(c.record).toLowerCase().includes(needle)) ??
    [...cited].sort((a, b) => a.record.observedAt.localeCompare(b.record.observedAt)).at(-1);
  return sayer ? findTimeMentions(words, sayer.record.observedAt)[0] : undefined;
}

const PREPOSITIONS = new Set(['on', 'by', 'until', 'since', 'before', 'after', 'from', 'in', 'during', 'of']);

/**
 * A claim is read long after its records were written: relative time words ("yesterday", "next
 * Tuesday") become the absolute dates they meant, read against the record that says them. A day
 * named without its year ("April 6") is a date already and is completed where it stands; the bare
 * day of a pair ("April 6 and 7", "6 and 7 April") takes the year of the day beside it.
 */
export function withAbsoluteDates(claim: string, cited: readonly ArchivedRecord[]): string {
  if (!hasRelativeTime(claim)) return claim;
  const mentions = placedTimeMentions(claim, new Date(0)).filter((m) => !/\d{4}/.test(m.text));
  const named = mentions.map((m) => (BARE_DAY.test(m.text) ? undefined : mentionIn(m.text, cited)));
  let out = '';
  let from = 0;
  mentions.forEach((m, i) => {
    const meant = named[i] ?? pairedDay(m, named[partnerOf(claim, mentions, i)]);
    if (!meant) return;
    const before = claim.slice(0, m.index).trimEnd().split(/\s+/).at(-1)?.toLowerCase() ?? '';
    const lead = m.yearless || PREPOSITIONS.has(before) ? '' : meant.precision === 'day' ? 'on ' : 'in ';
    out += `${claim.slice(from, m.index)}${lead}${formatMention(meant)}`;
    from = m.index + m.text.length;
  });
  return out + claim.slice(from);
}

/** What stands between the two days of a pair. */
const JOINS_PAIR = /^\s*(?:and|or|&)\s*$/i;

/** Which mention a bare day is paired with: the one "and" or "or" joins it to, before or after it; -1 if none. */
function partnerOf(claim: string, mentions: readonly PlacedMention[], i: number): number {
  const joined = (a: number, b: number): boolean => {
    const [x, y] = [mentions[a], mentions[b]];
    return x !== undefined && y !== undefined && JOINS_PAIR.test(claim.slice(x.index + x.text.length, y.index));
  };
  return joined(i - 1, i) ? i - 1 : joined(i, i + 1) ? i + 1 : -1;
}

/** A day of a pair written as its number alone: the "7" of "April 6 and 7", the "6" of "6 and 7 April". */
const BARE_DAY = /^\d{1,2}(?:st|nd|rd|th)?$/;

/** A bare day's month and day (as the pair names them), with the year of the day beside it. */
function pairedDay(m: TimeMention, beside: TimeMention | undefined): TimeMention | undefined {
  if (!m.yearless || !beside) return undefined;
  const at = new Date(Date.UTC(beside.at.getUTCFullYear(), m.at.getUTCMonth(), m.at.getUTCDate()));
  return { text: m.text, at, precision: 'day' };
}

/**
 * A plain claim from the structure, for a model that gave none: "u-dan prefers aisle seats over
 * window seats", "crm.export times out with pageSize 1000; pageSize 200 works". Minimal on
 * purpose; the kinds' claim templates render richer text.
 */
export function fallbackClaim(kind: NoteKind, s: NoteStructure): string {
  const verb = s.polarity === 'negative' ? negated(s.attribute) : s.attribute;
  let text = `${s.subject.id} ${verb} ${s.value}`;
  if (s.contrast) text += kind === 'preference' ? ` over ${s.contrast}` : `; ${s.contrast} works`;
  const conditions = (s.conditions ?? []).map((c) => `${c.field} ${OP_WORDS[c.op]} ${String(c.value)}`);
  if (conditions.length > 0) text += ` when ${conditions.join(' and ')}`;
  if (s.time?.at) text += ` on ${formatMention({ at: new Date(s.time.at), precision: 'day' })}`;
  return `${text}.`;
}

const OP_WORDS = { eq: 'is', ne: 'is not', gt: 'is over', gte: 'is at least', lt: 'is under', lte: 'is at most' };

const AUXILIARIES = new Set(['is', 'are', 'was', 'were', 'can', 'will', 'should', 'must', 'may']);
const PAST = new Set(['went', 'made', 'took', 'saw', 'got', 'had', 'said', 'came', 'did', 'gave', 'met', 'bought']);

/** "prefers" → "does not prefer", "is" → "is not", "went to" → "never went to". */
function negated(attribute: string): string {
  const [first = '', ...rest] = attribute.trim().split(/\s+/);
  const tail = rest.length > 0 ? ` ${rest.join(' ')}` : '';
  const w = first.toLowerCase();
  if (AUXILIARIES.has(w)) return `${first} not${tail}`;
  if (w === 'has') return `does not have${tail}`;
  if (PAST.has(w) || w.endsWith('ed')) return `never ${attribute.trim()}`;
  if (/(ss|sh|ch|x|o)es$/.test(w)) return `does not ${first.slice(0, -2)}${tail}`;
  if (w.endsWith('s') && !w.endsWith('ss')) return `does not ${first.slice(0, -1)}${tail}`;
  return `not ${attribute.trim()}`;
}
