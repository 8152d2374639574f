import type { Episode, Finding, Proposal } from '../contracts/episode.ts';
import type { NoteContent } from '../contracts/note.ts';

/** The current active version of a note, as engines and reconciliation see it. */
export interface ActiveNote {
  noteId: string;
  version: number;
  content: NoteContent & { sourceCount: number };
}

export interface ProposeInput {
  episodes: readonly Episode[];
  findings: readonly Finding[];
  activeNotes: readonly ActiveNote[];
  now: Date;
  /** LLM tokens this call may spend; engines without a model ignore it. Absent: no limit. */
  tokenBudget?: number;
}

/**
 * A change an engine refused to propose (a model's answer that names a note it was not shown, cites
 * a record that was not listed, …), with the rule it broke: recorded with the run's rejections.
 */
export interface EngineRefusal {
  rule: string;
  detail: string;
  /** What was refused, as the engine received it (a model's raw change). */
  proposal: unknown;
}

/** Turns findings into proposed note changes. Every proposal still goes through validation. */
export interface NoteEngine {
  readonly name: string;
  propose(input: ProposeInput): Promise<{ proposals: Proposal[]; llmTokens: number; refused?: EngineRefusal[] }>;
}
