import { formatMention } from '../../../policies/dates.ts';
import { contentTokens, jaccard, sentences } from '../../../policies/text.ts';
import type { ArchivedRecord, Episode, Proposal } from '../../contracts/episode.ts';
import { create, MAX_CLAIM_CHARS, sessionScope } from './proposal.ts';

/**
 * An episode's digest: who talked when, and the lessons drawn from it, each as the first
 * sentence of a note this run proposes and citing that note's records, in the order they
 * happened. Extractive, so validation can check it like the notes it summarizes.
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
  const byId = new Map(ep.records.map((r) => [r.record.id, r]));
  const first = ep.records[0] as ArchivedRecord;
  const header = `In ${ep.sessionId} on ${formatMention({ at: new Date(first.record.observedAt), precision: 'day' })}, ${participants(ep)} talked:`;
  let value = header;
  const evidence: ArchivedRecord[] = [];
  const told: string[][] = [];
  for (const p of facts) {
    const fact = shorten(sentences(p.content.claim)[0] ?? p.content.claim);
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
  if (evidence.length === 0) return [];
  const finding = { type: 'episode_digest' as const, episodeKey: ep.key, summary: value, evidence };
  return [
    create(finding, ep, {
      kind: 'episode_summary',
      sourceKind: 'inference',
      scope: sessionScope(ep),
      structure: {
        subject: { type: 'entity', id: ep.sessionId },
        attribute: 'summary',
        value,
        exclusive: false,
        polarity: 'positive',
        conditions: [],
        time: { at: first.record.observedAt },
        template: 'episode_summary',
      },
    }),
  ];
}

function participants(ep: Episode): string {
  const people = [
    ...new Set(
      ep.records
        .filter((r) => r.record.kind === 'user_message' && r.record.userId)
        .map((r) => r.record.userId as string),
    ),
  ];
  if (ep.records.some((r) => r.record.kind === 'agent_message')) people.push('the assistant');
  return people.length <= 1 ? (people[0] ?? 'the assistant') : `${people.slice(0, -1).join(', ')} and ${people.at(-1)}`;
}

function shorten(sentence: string): string {
  if (sentence.length <= DIGEST_FACT_CHARS) return sentence;
  const cut = sentence.lastIndexOf(' ', DIGEST_FACT_CHARS);
  return `${sentence.slice(0, cut > 0 ? cut : DIGEST_FACT_CHARS)} …`;
}
