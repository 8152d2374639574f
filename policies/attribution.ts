import type { ArchivedRecord, Episode, Finding } from '../src/contracts/episode.ts';
import { contentTokens, sentences } from './text.ts';

/**
 * Compare & attribute: what went differently from what was expected in an episode,
 * and which records show it. Pure: the same episodes always give the same findings.
 */

export const PREFERENCE_MARKERS =
  /\b(always|never|prefer|i (want|like|need|asked for)|please (always|never|don't|do not))\b/i;

const toolOf = (r: ArchivedRecord): string | undefined => {
  const payload = r.record.payload as { tool?: unknown } | undefined;
  return typeof payload?.tool === 'string' ? payload.tool : undefined;
};

const isFailure = (r: ArchivedRecord): boolean =>
  r.record.kind === 'error' || r.record.outcome?.status === 'failure' || (r.record.tags ?? []).includes('failure');

export function attributeEpisode(episode: Episode, successfulPeers: readonly Episode[] = []): Finding[] {
  return [
    ...toolErrors(episode),
    ...corrections(episode),
    ...preferences(episode),
    ...statedFacts(episode),
    ...outdatedConstraints(episode),
    ...toolContent(episode),
    ...omittedSteps(episode, successfulPeers),
  ];
}

function toolErrors(ep: Episode): Finding[] {
  const out: Finding[] = [];
  ep.records.forEach((r, i) => {
    if (r.record.kind !== 'error') return;
    const tool = toolOf(r);
    const before = ep.records.slice(0, i);
    const after = ep.records.slice(i + 1);
    const failedCall = [...before].reverse().find((x) => x.record.kind === 'tool_call' && toolOf(x) === tool);
    const retryIndex = after.findIndex((x) => x.record.kind === 'tool_call' && toolOf(x) === tool);
    const retry = retryIndex >= 0 ? after[retryIndex] : undefined;
    const success = retry
      ? after.slice(retryIndex + 1).find((x) => x.record.kind === 'tool_result' && toolOf(x) === tool && !isFailure(x))
      : undefined;
    const evidence = [failedCall, r, ...(retry && success ? [retry, success] : [])].filter(
      (x): x is ArchivedRecord => !!x,
    );
    out.push({
      type: 'tool_error',
      episodeKey: ep.key,
      summary: r.record.text ?? `${tool ?? 'a tool'} failed`,
      evidence,
      ...(tool ? { tool } : {}),
    });
  });
  return out;
}

function corrections(ep: Episode): Finding[] {
  return ep.records.flatMap((r, i) => {
    if (r.record.kind !== 'user_correction') return [];
    const contradicted = [...ep.records.slice(0, i)].reverse().find((x) => x.record.kind === 'agent_message');
    return [
      {
        type: 'factual_conflict' as const,
        episodeKey: ep.key,
        summary: r.record.text ?? '',
        evidence: contradicted ? [contradicted, r] : [r],
      },
    ];
  });
}

function preferences(ep: Episode): Finding[] {
  return ep.records
    .filter(
      (r) =>
        r.record.kind === 'user_message' && r.record.source !== 'tool' && PREFERENCE_MARKERS.test(r.record.text ?? ''),
    )
    .map((r) => ({
      type: 'stated_preference' as const,
      episodeKey: ep.key,
      summary: r.record.text ?? '',
      evidence: [r],
    }));
}

/** A speaker talking about themselves: `I`, `my`, `we`, `our` (not `me`, which requests use: "book me …"). */
const FIRST_PERSON = /\b(i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|our)\b/i;

/** Words a request opens with ("Put a meeting in my calendar", "Can you add …"): asking, not stating. */
const REQUEST_OPENER =
  /^(please|can|could|would|will|put|add|book|send|make|create|export|show|give|find|get|set|schedule|remind|tell|list|help|let's|lets|check|update|change|cancel|remove|delete)\b/i;

/** Statements shorter than this many content words are small talk, not facts worth a note. @default 4 */
export const STATED_FACT_MIN_WORDS = 4;
/** Longest statement kept from one message, in characters; the sentences kept come first. @default 600 */
export const STATED_FACT_MAX_CHARS = 600;

/**
 * What a user told the agent about themselves or their work (a plan, an event, a number, a
 * change): the declarative sentences of a user message that is neither a correction nor a
 * preference. Questions are left out, since they ask rather than state, and so are sentences
 * without a first-person subject or opening like a request ("Put a meeting in my calendar"),
 * which ask for something rather than state it.
 */
function statedFacts(ep: Episode): Finding[] {
  return ep.records.flatMap((r) => {
    if (r.record.kind !== 'user_message' || r.record.source === 'tool' || r.record.source === 'retrieved') return [];
    const text = r.record.text ?? '';
    if (PREFERENCE_MARKERS.test(text)) return [];
    const statement = declarativePart(text);
    if (contentTokens(statement).length < STATED_FACT_MIN_WORDS) return [];
    return [{ type: 'stated_fact' as const, episodeKey: ep.key, summary: statement, evidence: [r] }];
  });
}

function declarativePart(text: string): string {
  let out = '';
  for (const s of sentences(text)) {
    if (s.trimEnd().endsWith('?') || REQUEST_OPENER.test(s.trim()) || !FIRST_PERSON.test(s)) continue;
    if (out.length === 0 && s.length > STATED_FACT_MAX_CHARS)
      return s.slice(0, s.lastIndexOf(' ', STATED_FACT_MAX_CHARS));
    if (out.length + s.length + 1 > STATED_FACT_MAX_CHARS) break;
    out = out.length === 0 ? s : `${out} ${s}`;
  }
  return out;
}

/** A note recalled for this task (memory_used) that preceded a failure or a correction. */
function outdatedConstraints(ep: Episode): Finding[] {
  return ep.records.flatMap((r, i) => {
    if (r.record.kind !== 'memory_used') return [];
    const noteIds = recalledNoteIds(r.record.payload);
    const trouble = ep.records.slice(i + 1).find((x) => isFailure(x) || x.record.kind === 'user_correction');
    if (noteIds.length === 0 || !trouble) return [];
    return [
      {
        type: 'outdated_constraint' as const,
        episodeKey: ep.key,
        summary: `recalled notes preceded: ${trouble.record.text ?? trouble.record.kind}`,
        evidence: [r, trouble],
        noteIds,
      },
    ];
  });
}

export function recalledNoteIds(payload: unknown): string[] {
  const p = payload as { noteIds?: unknown; notes?: unknown } | undefined;
  const ids = Array.isArray(p?.noteIds)
    ? p.noteIds
    : Array.isArray(p?.notes)
      ? p.notes.map((n: { noteId?: unknown }) => n?.noteId)
      : [];
  return ids.filter((x): x is string => typeof x === 'string');
}

/**
 * Prose that a tool or retrieval returned: a candidate fact, and where injections hide. A JSON
 * document (a reservation, a search result) is this task's data, not a lesson, and is left out.
 */
function toolContent(ep: Episode): Finding[] {
  return ep.records
    .filter(
      (r) =>
        r.record.kind === 'tool_result' &&
        (r.record.text ?? '').trim().length >= 12 &&
        !isFailure(r) &&
        !isJsonDocument(r.record.text ?? ''),
    )
    .map((r) => ({
      type: 'tool_content' as const,
      episodeKey: ep.key,
      summary: r.record.text ?? '',
      evidence: [r],
      ...(toolOf(r) ? { tool: toolOf(r) as string } : {}),
    }));
}

/** Tools every successful peer of the same task type called but the failed episode did not. */
function omittedSteps(ep: Episode, peers: readonly Episode[]): Finding[] {
  const failed = ep.records.find((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'failure');
  const sameType = peers.filter((p) => p.key !== ep.key && p.taskType !== undefined && p.taskType === ep.taskType);
  if (!failed || sameType.length < 2) return [];
  const toolsOf = (e: Episode) =>
    new Set(
      e.records
        .filter((r) => r.record.kind === 'tool_call')
        .map(toolOf)
        .filter((t): t is string => !!t),
    );
  const used = toolsOf(ep);
  const common = [...toolsOf(sameType[0] as Episode)].filter((t) => sameType.every((p) => toolsOf(p).has(t)));
  return common
    .filter((tool) => !used.has(tool))
    .sort()
    .map((tool) => {
      const example = (sameType[0] as Episode).records.find(
        (r) => r.record.kind === 'tool_call' && toolOf(r) === tool,
      ) as ArchivedRecord;
      return {
        type: 'omitted_step' as const,
        episodeKey: ep.key,
        summary: `successful ${ep.taskType} tasks call ${tool}; this failed one did not`,
        evidence: [failed, example],
        tool,
      };
    });
}

function isJsonDocument(text: string): boolean {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}
