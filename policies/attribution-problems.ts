import type { ArchivedRecord, Episode, Finding } from '../src/contracts/episode.ts';
import { sentences } from './text.ts';

/**
 * Failures in runs where several agents work together. Their logs rarely hold a failing tool:
 * what shows where a run went wrong is another agent saying so ("the function did not return
 * any data", a planner's ledger marking no progress). Such a report blames the work it answers,
 * the nearest earlier step of another agent. A failed multi-agent run in which nothing failed
 * visibly and nobody reported a problem ended with a wrong answer arrived at without a visible
 * slip: the approach set at its start is what to revise.
 */

/** Words an agent reports a problem with. */
const PROBLEM_WORDS =
  /\b(did not|didn't|does not|doesn't|not found|no results?|unable|could not|couldn't|cannot|can't|failed|fails|error|incorrect|mistake|wrong|not (?:available|accessible|possible))\b/i;
/**
 * A report opens the message: further down, the same words are usually code, quoted output or
 * a plan's contingencies. @default 600
 */
export const PROBLEM_REPORT_CHARS = 600;
/** A planner's progress ledger (JSON) saying no progress is being made, or that the run is in a loop; with its reason. */
const LEDGER_NO_PROGRESS =
  /"is_progress_being_made"\s*:\s*\{\s*"reason"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"answer"\s*:\s*false/i;
const LEDGER_IN_LOOP = /"is_in_loop"\s*:\s*\{\s*"reason"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"answer"\s*:\s*true/i;
/** Longest report quoted in a lesson, in characters. @default 300 */
export const MAX_REPORT_CHARS = 300;

/** The agent behind a speaker label: `Orchestrator (thought)` speaks for the Orchestrator. */
const agentOf = (r: ArchivedRecord): string | undefined =>
  r.record.kind === 'agent_message' ? (r.record.role ?? '').replace(/\s*\(.*\)\s*$/, '') || undefined : undefined;

/** Several agents speak in the run: the only runs where one agent's work can be blamed on another's report. */
export function multiAgent(ep: Episode): boolean {
  return new Set(ep.records.map(agentOf).filter((a) => a !== undefined)).size >= 2;
}

/** What the message reports as wrong, as it says it; undefined when it reports nothing. */
export function reportedProblem(text: string): string | undefined {
  const ledger = LEDGER_NO_PROGRESS.exec(text) ?? LEDGER_IN_LOOP.exec(text);
  if (ledger) return unescape(ledger[1] as string);
  const opening = text.slice(0, PROBLEM_REPORT_CHARS);
  if (!PROBLEM_WORDS.test(opening)) return undefined;
  return sentences(opening).find((s) => PROBLEM_WORDS.test(s));
}

const unescape = (json: string): string => {
  try {
    return JSON.parse(`"${json}"`) as string;
  } catch {
    return json;
  }
};

/** Each report of a problem by an agent, citing the other agent's step it answers and the report. */
export function reportedProblems(ep: Episode): Finding[] {
  if (!multiAgent(ep)) return [];
  return ep.records.flatMap((r, i) => {
    const reporter = agentOf(r);
    const report = reporter ? reportedProblem(r.record.text ?? '') : undefined;
    if (!reporter || !report) return [];
    const answered = [...ep.records.slice(0, i)].reverse().find((x) => {
      const agent = agentOf(x);
      return agent !== undefined && agent !== reporter;
    });
    if (!answered) return [];
    return [
      {
        type: 'reported_problem' as const,
        episodeKey: ep.key,
        summary: clip(report),
        evidence: [answered, r],
      },
    ];
  });
}

function clip(text: string): string {
  const t = text.trim();
  if (t.length <= MAX_REPORT_CHARS) return t;
  const cut = t.lastIndexOf(' ', MAX_REPORT_CHARS);
  return t.slice(0, cut > 0 ? cut : MAX_REPORT_CHARS);
}
