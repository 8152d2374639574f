import { z } from 'zod';
import { IsoDateTime, TenantId } from '../contracts/ids.ts';
import { EvidenceRef, NOTE_KINDS, NoteScope, SOURCE_KINDS } from '../contracts/note.ts';
import { RECORD_KINDS } from '../contracts/raw-record.ts';

/** Largest k a caller may ask for; candidate generation reads a few times this many rows. */
export const MAX_K = 100;

/** What recall searches: consolidated notes, and the raw records of the record index. */
export const RECALL_SOURCES = ['notes', 'records'] as const;

/**
 * One recall request, as the library, the CLI and the HTTP API take it. Strict: an unknown
 * field is a mistake the caller should hear about (e.g. `token_budget` for `tokenBudget`).
 */
export const RecallRequest = z.strictObject({
  tenantId: TenantId,
  query: z.string().trim().min(1, 'query must not be empty').max(4000, 'query is longer than 4000 characters'),
  /** Only notes in one of these scopes; absent → every scope of the tenant. */
  scope: z.union([NoteScope, z.array(NoteScope).min(1).max(50)]).optional(),
  /** At most this many items in the fused ranking (notes and records together). */
  k: z.number().int().min(1).max(MAX_K).default(10),
  /** Which sources to search; `["notes"]` leaves raw records out. */
  include: z
    .array(z.enum(RECALL_SOURCES))
    .min(1)
    .max(RECALL_SOURCES.length)
    .default([...RECALL_SOURCES]),
  /** Upper bound on the returned claims' and records' size, in approximate tokens (chars / 4). */
  tokenBudget: z.number().int().min(1).max(1_000_000).optional(),
  /**
   * Leave out notes and records that match the query less than this (their relevance, 0..1:
   * cosine and word match). When nothing matches this well the answer is empty: recall abstains
   * instead of returning the least unrelated items. Absent → nothing is left out for its match.
   */
  minRelevance: z.number().min(0).max(1).optional(),
  /**
   * Who asks: the user whose "I", "me" and "my" the query speaks of, named as the records name
   * them (their `userId`). The query is then matched told in the third person, the way records
   * and notes are told ("when is my deadline?" → "when is u-dan's deadline?"). Absent → the
   * query is matched as written; on the HTTP API a user-bound token's user asks.
   */
  askedBy: z.string().trim().min(1).max(256).optional(),
  /** Point-in-time recall for audits: what the store knew at this instant (records observed later are left out). */
  asOf: IsoDateTime.optional(),
  /** When given, the returned versions are logged in memory usage for this task. */
  taskId: z.string().min(1).max(256).optional(),
});
export type RecallRequest = z.input<typeof RecallRequest>;
export type ParsedRecallRequest = z.output<typeof RecallRequest>;

export const ScorePartsSchema = z.object({
  vector: z.number(),
  text: z.number(),
  confidence: z.number(),
  importance: z.number(),
  decay: z.number(),
  relevance: z.number(),
  prior: z.number(),
  score: z.number(),
});

export const RecalledNote = z.object({
  rank: z.number().int().min(1),
  noteId: z.string(),
  version: z.number().int().min(1),
  claim: z.string(),
  kind: z.enum(NOTE_KINDS),
  scope: NoteScope,
  evidence: z.array(EvidenceRef),
  confidence: z.number(),
  score: z.number(),
  parts: ScorePartsSchema,
  why: z.string(),
  tokens: z.number().int(),
  /** Near-duplicate notes folded into this one (not returned separately). */
  duplicates: z.array(z.object({ noteId: z.string(), version: z.number().int() })),
  /** Active notes of the same slot that restate or contradict this one, left out in its favour. */
  conflicts: z
    .array(z.object({ noteId: z.string(), version: z.number().int(), claim: z.string(), confidence: z.number() }))
    .default([]),
  /** Set when the note was contradicted and kept (its confidence is still above the recall floor). */
  contradictedAt: IsoDateTime.nullable().default(null),
  /** Where the note's evidence came from (`tool_fact`: tool output no person has confirmed). */
  sourceKind: z.enum(SOURCE_KINDS).optional(),
  /** True when the note rests on tool or retrieved output alone: data a tool reported, to be checked, never an instruction. */
  toolDerived: z.boolean().optional(),
  /**
   * True when the note has no vector yet: notes commit before their claims are embedded, and
   * until the indexing step catches up such a note is found by full text alone (its score has
   * no vector part). Absent otherwise.
   */
  vectorPending: z
    .boolean()
    .optional()
    .describe(
      'true when the note has no vector yet (committed before its claim was embedded; the indexing step catches up): found by full text alone, its score has no vector part',
    ),
});
export type RecalledNote = z.infer<typeof RecalledNote>;

/** A raw record recalled from the record index: what was said, by whom, when, and where it is archived. */
export const RecalledRecord = z.object({
  rank: z.number().int().min(1),
  recordId: z.string(),
  evidence: EvidenceRef,
  /** Who spoke: the user for what a user said, else the role ("assistant"), else the kind (redacted like the text). */
  speaker: z.string(),
  userId: z.string().nullable(),
  agentId: z.string(),
  sessionId: z.string(),
  kind: z.enum(RECORD_KINDS),
  observedAt: IsoDateTime,
  /** The record's text, redacted. */
  text: z.string(),
  /** True for a tool's output (results, calls, errors): data, never an instruction. */
  untrusted: z.boolean().optional(),
  /** Its fused (reciprocal rank) score. */
  score: z.number(),
  /**
   * How well it matches the query, 0..1: cosine and word match weighed as a note's
   * `parts.relevance` is, so the two compare (the fused score is a rank, not a match).
   */
  relevance: z.number(),
  why: z.string(),
  tokens: z.number().int(),
});
export type RecalledRecord = z.infer<typeof RecalledRecord>;

/** One place in the order an agent should read the answer in. */
export const RankedItem = z.object({
  type: z.enum(['note', 'record']),
  /** A note id or a record id. */
  id: z.string(),
});
export type RankedItem = z.infer<typeof RankedItem>;

export const RecallResult = z.object({
  tenantId: z.string(),
  query: z.string(),
  /** The query as it was matched: told in the third person when the request says who asks. */
  matchedAs: z.string().optional(),
  /** The instant the answer is for: now, or the requested asOf. */
  at: IsoDateTime,
  asOf: IsoDateTime.nullable(),
  /** Named in every answer, so a lexical fallback embedder is never silent. */
  embedder: z.string(),
  policy: z.string(),
  /** Recalled notes, in the fused order, each with its evidence. */
  notes: z.array(RecalledNote),
  /**
   * The standing preferences of the user(s) the request names (a user scope, or a user-bound
   * token's user), most confident first, at most 3, whatever the query is about; not counted in
   * k and not repeated from `notes`. Empty for an audit (`asOf`) and when no user is named.
   */
  preferences: z.array(RecalledNote).default([]),
  /** Recalled raw records not already cited as evidence by a returned note, in the fused order. */
  records: z.array(RecalledRecord).default([]),
  /** Notes and records fused into one order (reciprocal rank fusion): what an agent should read first. */
  ranking: z.array(RankedItem).default([]),
  /** The fusion policy that ordered `ranking`. */
  fusion: z.string().optional(),
  /** Anything that degraded this answer, e.g. vectors of another model awaiting a reindex. */
  warnings: z.array(z.string()),
  tokens: z.number().int(),
  tokenBudget: z.number().int().nullable(),
  stats: z.object({
    candidates: z.number().int(),
    vectorCandidates: z.number().int(),
    textCandidates: z.number().int(),
    /** `hnsw`: the index answered; `exact`: too few index hits, so an exact scan made sure k eligible rows are not missed. */
    vectorPath: z.enum(['hnsw', 'exact', 'none']),
    duplicatesFolded: z.number().int(),
    overBudget: z.number().int(),
    usageLogged: z.number().int(),
    recordVectorCandidates: z.number().int().default(0),
    recordTextCandidates: z.number().int().default(0),
    /** Records read because they were said on a day or in a month the query names (policies/query-time.ts). */
    recordsAtNamedTimes: z.number().int().default(0),
    /** Records left out because a returned note cites them as evidence. */
    recordsCitedByNotes: z.number().int().default(0),
    /** Contradicted notes left out for a confidence below the floor (policies/recall-conflicts.ts). */
    contradictedLeftOut: z.number().int().default(0),
    /** Notes and records left out for a relevance below the request's `minRelevance`. */
    belowMinRelevance: z.number().int().default(0),
    /** Notes left out because a better-ranked note of the same slot was returned. */
    slotConflictsSuppressed: z.number().int().default(0),
  }),
});
export type RecallResult = z.infer<typeof RecallResult>;
