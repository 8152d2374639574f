import type { NoteKind, NoteVersion, SourceKind } from '../../src/contracts/note.ts';
import type { EvalCase, EvalRecord, FailedRunOutcome } from './types.ts';

/** Kinds of note that state a lesson: what goes wrong, how a tool behaves, what to do, what must hold. */
const LESSON_KINDS: ReadonlySet<NoteKind> = new Set(['failure_cause', 'tool_behavior', 'strategy', 'constraint']);

/**
 * Whether a note can explain a failure: a lesson, or a user's correction of what the agent did.
 * The rule reads only the note's kind and source, never how consolidation found it, so findings
 * of new types (a failed trial contrasted with successful ones, a tool error without a retry)
 * count as soon as they are written as lessons. What a user merely said about themselves is not
 * an explanation, whatever kind it was filed under.
 */
export function explainsFailure(note: Pick<NoteVersion, 'kind' | 'sourceKind'>): boolean {
  if (note.sourceKind === 'user_correction') return true;
  return LESSON_KINDS.has(note.kind) && !STATED_BY_USER.has(note.sourceKind);
}

const STATED_BY_USER: ReadonlySet<SourceKind> = new Set(['user_statement']);

/** Notes that are memory after the run: recalled, or held back for review. */
const learned = (n: NoteVersion): boolean => n.status === 'active' || n.status === 'quarantined';

/**
 * A tool's output shows where things went wrong, but the tool did not decide anything: the step
 * to blame is the agent's that called it, the nearest agent step before it in the same run.
 */
function actingStep(evalCase: EvalCase, cited: EvalRecord): EvalRecord {
  if (cited.record.kind !== 'error' && cited.record.kind !== 'tool_result') return cited;
  const before = evalCase.records.filter(
    (r) =>
      r.goldSession === cited.goldSession &&
      r.step !== undefined &&
      (r.step as number) < (cited.step as number) &&
      (r.record.kind === 'agent_message' || r.record.kind === 'tool_call'),
  );
  return before.at(-1) ?? cited;
}

/**
 * Records a lesson must cite to trace the failed outcome to a step: the outcome, the message that
 * concluded the run, and an earlier step that gave what it concluded. A lesson citing only the
 * outcome and the conclusion ("an answer no earlier step gave") names no step that went wrong.
 */
const TRACE_RECORDS = 3;

/**
 * Per failed run: the notes drawn from its records, whether a lesson note cites one of them
 * (the run is explained), and where it went wrong: the earliest step cited by a lesson that
 * traces the failed outcome to a step (it cites the run's `task_outcome`), or failing one, by any
 * lesson. A tool error the run recovered from, or a problem reported along the way, comes earlier
 * than the step whose answer the failed run ended with, but did not decide how it ended.
 */
export function failedRunOutcomes(
  evalCase: EvalCase,
  notes: readonly NoteVersion[],
  byRecordId: ReadonlyMap<string, EvalRecord>,
): FailedRunOutcome[] {
  const memory = notes.filter(learned);
  return evalCase.failedRuns.map((run) => {
    const citedFrom = (n: NoteVersion) =>
      n.evidence
        .map((e) => byRecordId.get(e.recordId))
        .filter((r): r is EvalRecord => r?.goldSession === run.goldSession);
    const fromRun = memory.filter((n) => citedFrom(n).length > 0);
    const lessons = fromRun.filter(explainsFailure);
    const traces = (n: NoteVersion) => {
      const records = citedFrom(n);
      return records.length >= TRACE_RECORDS && records.some((r) => r.record.kind === 'task_outcome');
    };
    const causes = lessons.some(traces) ? lessons.filter(traces) : lessons;
    const cited = causes
      .flatMap(citedFrom)
      .filter((r) => r.step !== undefined)
      .sort((a, b) => (a.step as number) - (b.step as number))[0];
    const blamed = cited ? actingStep(evalCase, cited) : undefined;
    return {
      dataset: evalCase.dataset,
      caseId: evalCase.caseId,
      runId: run.runId,
      notes: fromRun.length,
      explained: lessons.length > 0,
      ...(blamed?.step !== undefined ? { attributedStep: blamed.step } : {}),
      ...(blamed?.actor !== undefined ? { attributedAgent: blamed.actor } : {}),
      ...(run.mistakeStep !== undefined ? { mistakeStep: run.mistakeStep } : {}),
      ...(run.mistakeAgent !== undefined ? { mistakeAgent: run.mistakeAgent } : {}),
    };
  });
}
