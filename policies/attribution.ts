import type { ArchivedRecord, Episode, Finding } from '../src/contracts/episode.ts';
import { trialContrasts, toolOf } from './attribution-contrast.ts';
import { contradictsTool, preferences, statedFacts } from './attribution-statements.ts';
import { reportedProblems } from './attribution-problems.ts';
import { uncheckedAnswers } from './attribution-answers.ts';
import { noToolFailures } from './attribution-no-tool.ts';

export { PREFERENCE_MARKERS, STATED_FACT_MAX_CHARS, STATED_FACT_MIN_WORDS } from './attribution-statements.ts';

/**
 * Compare & attribute: what went differently from what was expected in an episode,
 * and which records show it. Pure: the same episodes always give the same findings.
 */

const isFailure = (r: ArchivedRecord): boolean =>
  r.record.kind === 'error' || r.record.outcome?.status === 'failure' || (r.record.tags ?? []).includes('failure');

export function attributeEpisode(episode: Episode, successfulPeers: readonly Episode[] = []): Finding[] {
  return [
    ...toolErrors(episode),
    ...corrections(episode),
    ...reportedProblems(episode),
    ...uncheckedAnswers(episode),
    ...trialContrasts(episode, successfulPeers),
    ...noToolFailures(episode),
    ...preferences(episode),
    ...statedFacts(episode),
    ...outdatedConstraints(episode),
    ...toolContent(episode),
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
    // What worked is the call whose own result succeeded: after two failures the second
    // attempt is not what worked, the one that finally answered is.
    const successIndex = after.findIndex((x) => x.record.kind === 'tool_result' && toolOf(x) === tool && !isFailure(x));
    const success = successIndex >= 0 ? after[successIndex] : undefined;
    const retry = success
      ? after.slice(0, successIndex).findLast((x) => x.record.kind === 'tool_call' && toolOf(x) === tool)
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
    if (r.record.kind !== 'user_correction' || contradictsTool(ep, i)) return [];
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
