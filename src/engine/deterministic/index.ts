import type { Episode, Finding, Proposal } from '../../contracts/episode.ts';
import type { ActiveNote, NoteEngine, ProposeInput } from '../types.ts';
import { noToolRun, trialContrast } from './contrast.ts';
import { contradictNote } from './contradictions.ts';
import { digestOf } from './digest.ts';
import { correction, statedFact, statedPreference } from './people.ts';
import { reportedProblem, uncheckedAnswer } from './problems.ts';
import { toolContent, toolError } from './tools.ts';

/**
 * The default note engine: no model, only the structure of the records. It writes lessons, not
 * quotes: each note carries a structure (subject, attribute, value, polarity, conditions, time)
 * and its claim is rendered from it by a template: third person, absolute dates, the narrowest
 * scope that holds. Each episode with enough lessons also gets a digest.
 */
export function createDeterministicEngine(): NoteEngine {
  return {
    name: 'deterministic',
    async propose(input: ProposeInput) {
      const active = new Map(input.activeNotes.map((n) => [n.noteId, n]));
      const proposals = input.episodes.flatMap((episode) => {
        const mine = input.findings
          .filter((f) => f.episodeKey === episode.key)
          .flatMap((f) => proposalsFor(f, episode, active, input.now));
        return [...mine, ...digestOf(episode, mine)];
      });
      return { proposals, llmTokens: 0 };
    },
  };
}

function proposalsFor(f: Finding, ep: Episode, active: Map<string, ActiveNote>, now: Date): Proposal[] {
  switch (f.type) {
    case 'factual_conflict':
      return [correction(f, ep)];
    case 'stated_preference':
      return [statedPreference(f, ep)];
    case 'stated_fact':
      return [statedFact(f, ep)];
    case 'tool_error':
      return [toolError(f, ep)];
    case 'tool_content':
      return [toolContent(f, ep)];
    case 'omitted_step':
      return [trialContrast(f, ep)];
    case 'reported_problem':
      return [reportedProblem(f, ep)];
    case 'unchecked_answer':
      return [uncheckedAnswer(f, ep)];
    case 'no_tool_call':
      return [noToolRun(f, ep)];
    case 'outdated_constraint':
      return (f.noteIds ?? []).flatMap((id) => contradictNote(f, active.get(id), now));
    case 'episode_digest':
      return [];
  }
}
