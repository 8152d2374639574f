import type { EvidenceRef, NoteContent, NoteKind, NoteScope, SourceKind } from './note.ts';
import type { RawRecord } from './raw-record.ts';

/** A raw record together with where it lives in the archive: the makings of an evidence ref. */
export interface ArchivedRecord {
  record: RawRecord;
  ref: EvidenceRef;
}

/** The records of one task (or one session when there is no task id), in observation order. */
export interface Episode {
  key: string;
  tenantId: string;
  sessionId: string;
  taskId?: string;
  taskType?: string;
  userId?: string;
  agentId: string;
  records: ArchivedRecord[];
}

export const FINDING_TYPES = [
  'tool_error',
  'factual_conflict',
  'outdated_constraint',
  'omitted_step',
  'reported_problem',
  'unchecked_answer',
  'no_tool_call',
  'stated_preference',
  'stated_fact',
  'tool_content',
  'episode_digest',
] as const;
export type FindingType = (typeof FINDING_TYPES)[number];

/** What comparing expected with actual found in an episode, with the records that show it. */
export interface Finding {
  type: FindingType;
  episodeKey: string;
  summary: string;
  evidence: ArchivedRecord[];
  /** Notes recalled for the task (memory_used) that preceded the failure, for outdated_constraint. */
  noteIds?: string[];
  tool?: string;
  /** For omitted_step: how a failed run differed from successful runs of the same task type. */
  contrast?: TrialContrast;
  /** For no_tool_call: what a failed run that called no tool replied instead. */
  noTool?: NoToolReply;
}

/**
 * A failed run that called no tool: the agent declined to look something up ("was unable to
 * access their gift card balances"), or kept asking for identifiers the user did not have
 * ("reservation ID"). `value` is the declined request or the identifiers, from its replies.
 */
export interface NoToolReply {
  reply: 'declined' | 'kept_asking';
  value: string;
  /** declined: the reply denies the value ("I can't provide X": "provide X"), rather than stating it ("was unable to …"). */
  denied?: boolean;
}

/**
 * What a failed run did differently from successful runs of its task type: it skipped a tool
 * they call, called one they do not, called a tool with other arguments, or acted without the
 * confirmation they asked for.
 */
export interface TrialContrast {
  kind: 'omitted_tool' | 'extra_tool' | 'other_arguments' | 'skipped_confirmation';
  tool: string;
  /** other_arguments: the argument values that differ, in the failed run and in a successful one. */
  failedArgs?: Record<string, string>;
  successfulArgs?: Record<string, string>;
  /**
   * omitted_tool of a tool the failed run did call: the arguments of the successful runs' call it
   * never made ("update_reservation_flights with reservation_id X7BYG1").
   */
  args?: Record<string, string>;
}

export type ProposalOp = 'create' | 'reinforce' | 'revise' | 'supersede' | 'retire' | 'quarantine';

/** A proposed note change, before validation against the raw records it cites. */
export interface Proposal {
  op: ProposalOp;
  /** The note to change (reinforce, revise, retire, quarantine of an existing note). */
  noteId?: string;
  expectedVersion?: number;
  content: NoteContent;
  /** For supersede: the note that replaces this one. */
  supersededBy?: string;
  /** What the change comes from; `recall_success`: the note was recalled before a task that succeeded. */
  finding: FindingType | 'recall_success';
  reason: string;
}

export type { NoteKind, NoteScope, SourceKind };
