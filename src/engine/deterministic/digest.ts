import { formatMention } from '../../../policies/dates.ts';
import { asOfOpener } from '../../../policies/statements.ts';
import { contentTokens, jaccard, sentences } from '../../../policies/text.ts';
import type { ArchivedRecord, Episode, Proposal } from '../../contracts/episode.ts';
import { create, MAX_CLAIM_CHARS, sessionScope } from './proposal.ts';
import { isTask, taskStory } from './task-digest.ts';

/**
 * An episode's digest: who talked when, and what happened. Among people, the lessons drawn from
 * it, each as the first sentence of a note this run proposes and citing that note's records, in
 * the order they happened. In a task an agent worked on, the lessons are the task type's (what
 * successful runs do) and say nothing of this run, so the digest tells the run instead: what the
 * user asked for, what the assistant changed, how it ended (`task-digest.ts`). Extractive
 * either way, so validation can check it against the records it cites.
 */

/** Lessons an episode needs before it gets a digest. @default 3 */
export const DIGEST_MIN_FACTS = 3;
/** Share of content words two facts share to be told once in a digest. @default 0.7 */
export const DIGEST_REPEAT_OVERLAP = 0.7;
/** Longest fact in a digest, in characters, cut at a word. @default 160 */
export const DIGEST_FACT_CHARS = 160;

const DIGESTED = new Set(['fact', 'preference', 'tool_behavior', 'constraint', 'strategy', 'failure_cause']);

export function digestOf(ep: Episode, proposals: readonly Proposal[]): Proposal[] {
  const facts = proposals.filter(
    (p) => p.op === 'create' && DIGESTED.has(p.content.kind) && p.finding !== 'tool_content',
  );
  if (facts.length < DIGEST_MIN_FACTS) return [];
  const first = ep.records[0] as ArchivedRecord;
  const day = formatMention({ at: new Date(first.record.observedAt), precision: 'day' });
  const header = `In ${ep.sessionId} on ${day}, ${participants(ep)} talked:`;
  const user = speakerOf(ep);
  const story = isTask(ep) && user ? taskStory(ep, user) : undefined;
  const told = story
    ? { value: `${header} ${story.text}`, evidence: story.evidence }
    : lessonsTold(ep, facts, header, day);
  if (told.evidence.length === 0) return [];
  const finding = { type: 'episode_digest' as const, episodeKey: ep.key, summary: told.value, evidence: told.evidence };
  return [
    create(finding, ep, {
      kind: 'episode_summary',
      sourceKind: 'inference',
      scope: sessionScope(ep),
      structure: {
        subject: { type: 'entity', id: ep.sessionId },
        attribute: 'summary',
        value: told.value,
        exclusive: false,
        polarity: 'positive',
        conditions: [],
        time: { at: first.record.observedAt },
        template: 'episode_summary',
      },
    }),
  ];
}

/**
 * The first sentence of each lesson, after the header, until the claim is full. A lesson that
 * holds "as of" the header's day says so once, in the header.
 */
function lessonsTold(
  ep: Episode,
  facts: readonly Proposal[],
  header: string,
  day: string,
): { value: string; evidence: ArchivedRecord[] } {
  const asOfThatDay = asOfOpener(day);
  const byId = new Map(ep.records.map((r) => [r.record.id, r]));
  let value = header;
  const evidence: ArchivedRecord[] = [];
  const told: Array<readonly string[]> = [];
  for (const p of facts) {
    const first = sentences(p.content.claim)[0] ?? p.content.claim;
    const fact = shorten(first.startsWith(asOfThatDay) ? first.slice(asOfThatDay.length) : first);
    // The same failure met twice in one episode is one lesson in its digest.
    const words = contentTokens(fact);
    if (told.some((t) => jaccard(t, words) >= DIGEST_REPEAT_OVERLAP)) continue;
    told.push(words);
    if (value.length + fact.length + 1 > MAX_CLAIM_CHARS) break;
    value = `${value} ${fact}`;
    for (const ref of p.content.evidence) {
      const record = byId.get(ref.recordId);
      if (record && !evidence.includes(record)) evidence.push(record);
    }
  }
  return { value, evidence };
}

/** The one user who speaks in a task, if one does. */
function speakerOf(ep: Episode): string | undefined {
  return ep.records.find((r) => r.record.kind === 'user_message' && r.record.userId)?.record.userId;
}

function participants(ep: Episode): string {
  const people = [
    ...new Set(
      ep.records
        .filter((r) => r.record.kind === 'user_message' && r.record.userId)
        .map((r) => r.record.userId as string),
    ),
  ];
  if (isTask(ep)) people.push('the assistant');
  return people.length <= 1 ? (people[0] ?? 'the assistant') : `${people.slice(0, -1).join(', ')} and ${people.at(-1)}`;
}

function shorten(sentence: string): string {
  if (sentence.length <= DIGEST_FACT_CHARS) return sentence;
  const cut = sentence.lastIndexOf(' ', DIGEST_FACT_CHARS);
  return `${sentence.slice(0, cut > 0 ? cut : DIGEST_FACT_CHARS)} …`;
}
