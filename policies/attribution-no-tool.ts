import type { ArchivedRecord, Episode, Finding, NoToolReply } from '../src/contracts/episode.ts';

/**
 * A failed run that called no tool while a tool was the way to serve the request: the agent told
 * the user it could not look something up, or kept asking for an identifier the user said they
 * did not have, where a lookup would have found it. There is no successful run to contrast with
 * (every trial of such a task may fail the same way); the agent's own replies show what it did
 * instead of calling a tool. Each finding cites those replies and the failed outcome.
 */

/** Longest declined request written into a lesson, in words; the rest of the sentence is cut. @default 14 */
export const MAX_DECLINED_WORDS = 14;

/**
 * "I'm unable to access …", "I am not able to look up …", "I can't provide …": a refusal to read
 * or report data, which a lookup tool serves. A refusal to act ("I'm unable to modify a basic
 * economy ticket") is often the policy at work and is not matched.
 */
const DECLINE =
  /\bI(?:['’]m| am)\s+(unable|not able)\s+to\s+|\bI\s+(?:can['’]t|cannot|can not)\s+(?=(?:access|provide|look|retrieve|check|see|view|find|get|pull|locate)\b)|\bI\s+(?:currently\s+)?(?:don['’]t|do not)\s+have\s+(access)\s+to\s+/i;
const DATA_VERB = /^(access|provide|look|retrieve|check|see|view|find|get|pull|locate)\b/i;

/** The user says they do not have something: "I don't have my user ID or reservation ID with me". */
const LACKS = /\b(?:don['’]?t|do not|didn['’]?t|did not)\s+(?:have|know|remember)\b([^.?!,;]*)/gi;
/** An identifier in what the user lacks: "reservation ID", "confirmation number". */
const IDENTIFIER = /\b([a-z]+\s+(?:ID|number|code))\b/gi;

const isOutcome = (r: ArchivedRecord) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'failure';
const said = (r: ArchivedRecord, kind: 'agent_message' | 'user_message') => r.record.kind === kind;
const textOf = (r: ArchivedRecord) => r.record.text ?? '';

export function noToolFailures(ep: Episode): Finding[] {
  const failed = ep.records.find(isOutcome);
  // A task type names the lesson's scope; a run that called any tool is a contrast's business.
  if (!failed || !ep.taskType || ep.records.some((r) => r.record.kind === 'tool_call')) return [];
  const found: Array<[NoToolReply, ArchivedRecord[]]> = [];
  const declined = declinedLookup(ep);
  if (declined) {
    const reply: NoToolReply = {
      reply: 'declined',
      value: declined.value,
      ...(declined.denied ? { denied: true } : {}),
    };
    found.push([reply, [declined.message, failed]]);
  }
  const lacked = lackedIdentifiers(ep);
  if (lacked) found.push([{ reply: 'kept_asking', value: lacked.value }, [...lacked.evidence, failed]]);
  return found.map(([noTool, evidence]) => ({
    type: 'no_tool_call',
    episodeKey: ep.key,
    summary: `${noTool.reply.replace('_', ' ')}: ${noTool.value}`,
    evidence,
    noTool,
  }));
}

/**
 * The first reply declining to read data. "I'm unable to access X" keeps its wording ("was
 * unable to access X", asserted); "I can't provide X", "I don't have access to X" give what
 * was denied ("provide X", "access X"), denied: the negation is the note's polarity, so a note
 * turned the other way disagrees with the reply it cites.
 */
function declinedLookup(ep: Episode): { message: ArchivedRecord; value: string; denied: boolean } | undefined {
  for (const message of ep.records.filter((r) => said(r, 'agent_message'))) {
    for (const sentence of textOf(message).split(/(?<=[.!?;])\s+|\n+/)) {
      const m = DECLINE.exec(sentence);
      if (!m) continue;
      const rest = sentence.slice(m.index + m[0].length);
      // "I don't have access to X" names the data itself; the others name what they would do with it.
      if (!m[2] && !DATA_VERB.test(rest)) continue;
      if (m[1] === undefined || m[1].toLowerCase() !== 'unable') {
        return { message, value: `${m[2] ? 'access ' : ''}${thirdPerson(rest)}`, denied: true };
      }
      return { message, value: `was unable to ${thirdPerson(rest)}`, denied: false };
    }
  }
  return undefined;
}

/** "your gift cards" → "their gift cards": the lesson speaks of the user, not to them. */
function thirdPerson(clause: string): string {
  const words = clause
    .replace(/[.!?;:,]+$/, '')
    .replace(/\byour\b/gi, 'their')
    .replace(/\byou\b/gi, 'them')
    .split(/\s+/)
    .filter(Boolean);
  return words.slice(0, MAX_DECLINED_WORDS).join(' ');
}

/**
 * Identifiers the agent asked for, the user said they did not have, and the agent asked for
 * again: it insisted instead of looking the user up. Cites the first ask, the user's answer and
 * the next ask, for each identifier.
 */
function lackedIdentifiers(ep: Episode): { value: string; evidence: ArchivedRecord[] } | undefined {
  const names: string[] = [];
  const evidence: ArchivedRecord[] = [];
  ep.records.forEach((answer, i) => {
    if (!said(answer, 'user_message')) return;
    const lacked = [...textOf(answer).matchAll(LACKS)].flatMap((m) => [...(m[1] as string).matchAll(IDENTIFIER)]);
    for (const m of lacked) {
      const name = m[1] as string;
      if (/^(the|my|a|an|our|your)\s/i.test(name)) continue;
      const mentions = (r: ArchivedRecord) => said(r, 'agent_message') && mentionsId(textOf(r), name);
      const asked = ep.records.slice(0, i).findLast(mentions);
      const again = ep.records.slice(i + 1).find(mentions);
      if (!asked || !again || names.some((n) => n.toLowerCase() === name.toLowerCase())) continue;
      names.push(name);
      evidence.push(asked, answer, again);
    }
  });
  return names.length > 0 ? { value: names.join(' and '), evidence } : undefined;
}

const mentionsId = (text: string, name: string): boolean =>
  new RegExp(`\\b${name.replace(/\s+/g, '\\s+')}\\b`, 'i').test(text);
