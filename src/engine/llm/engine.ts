import { redactText } from '../../../policies/redaction-fields.ts';
import type { Proposal } from '../../contracts/episode.ts';
import { LlmBudgetError, LlmOutputError, totalTokens, type Llm } from '../../llm/llm.ts';
import { createDeterministicEngine } from '../deterministic.ts';
import type { EngineRefusal, NoteEngine, ProposeInput } from '../types.ts';
import { Envelope, ResponseSchema } from './answer.ts';
import { buildBatchView, type BatchItem, type BatchView } from './batch-view.ts';
import { readChanges } from './changes.ts';
import { renderBatch, SYSTEM_PROMPT } from './prompt.ts';

export interface LlmEngineOptions {
  /** Findings per model call. @default 4 */
  batchSize?: number;
  /** Completion tokens allowed (and reserved against the budget) per finding in a call. @default 300 */
  completionTokensPerFinding?: number;
  /** Used when the input carries no `tokenBudget`. @default Infinity */
  tokenBudget?: number;
  /**
   * What happens to findings left when the token budget is spent: `stop` proposes nothing more
   * (the run reports the budget as the reason it stopped); `deterministic` writes them without
   * the model. @default 'stop'
   */
  whenBudgetSpent?: 'stop' | 'deterministic';
  /** Characters of one record's text or payload shown to the model. @default 600 */
  maxRecordChars?: number;
  /** Active notes shown per call, most related first. @default 6 */
  maxNotes?: number;
  /** Characters of one shown note's claim or structure. @default 400 */
  maxNoteChars?: number;
}

type Indexed = BatchItem & { at: number };

/**
 * Notes written by a model. It sees the findings' records by number and the active notes they
 * may concern, and proposes creates, revisions, reinforcements and retirements citing those
 * numbers. Evidence refs, scope keys, source kind, confidence and importance come from the
 * records and the deterministic engine, so the model can neither invent evidence nor raise
 * confidence; a change naming a record or a note it was not shown is refused, and every
 * proposal still goes through validation like any other.
 */
export function createLlmEngine(llm: Llm, options: LlmEngineOptions = {}): NoteEngine {
  const deterministic = createDeterministicEngine();
  const batchSize = Math.max(1, options.batchSize ?? 4);
  return {
    name: `llm:${llm.name}`,
    async propose(input: ProposeInput) {
      const budget = input.tokenBudget ?? options.tokenBudget ?? Number.POSITIVE_INFINITY;
      const { out, items } = await splitFindings(deterministic, input);
      const refused: EngineRefusal[] = [];
      const changedNotes = new Set(out.flat().flatMap((p) => (p.noteId ? [p.noteId] : [])));
      let spent = 0;
      let budgetSpent = false;
      for (let i = 0; i < items.length; i += batchSize) {
        const batch = items.slice(i, i + batchSize);
        if (budgetSpent) {
          if (options.whenBudgetSpent === 'deterministic') batch.forEach((it) => (out[it.at] = [it.fallback]));
          continue;
        }
        const view = buildBatchView(batch, input.activeNotes, {
          maxNotes: options.maxNotes ?? 6,
          hidden: changedNotes,
        });
        const result = await writeBatch(llm, view, {
          maxTokens: (options.completionTokensPerFinding ?? 300) * batch.length,
          tokenLimit: budget - spent,
          maxRecordChars: options.maxRecordChars ?? 600,
          maxNoteChars: options.maxNoteChars ?? 400,
        });
        spent += result.tokens;
        if (result.kind === 'budget') {
          budgetSpent = true;
          i -= batchSize; // revisit this batch under the budget-spent rule
          continue;
        }
        if (result.kind === 'fallback') {
          batch.forEach((it) => (out[it.at] = [it.fallback]));
          continue;
        }
        // A change belongs with the first finding of its batch, which keeps the output in finding order.
        out[batch[0]?.at as number] = result.proposals;
        refused.push(...result.refused);
        result.changed.forEach((id) => changedNotes.add(id));
      }
      return { proposals: out.flat(), llmTokens: spent, refused };
    },
  };
}

/**
 * The deterministic engine's proposals, one list per finding; a finding it answers with one new
 * note becomes an item for the model (with that note as its fallback). Revisions of existing notes
 * (outdated constraints) need no writing: they pass through and cost no tokens.
 */
async function splitFindings(deterministic: NoteEngine, input: ProposeInput) {
  const byKey = new Map(input.episodes.map((e) => [e.key, e]));
  const out: Proposal[][] = input.findings.map(() => []);
  const items: Indexed[] = [];
  for (const [at, finding] of input.findings.entries()) {
    const fixed = await deterministic.propose({ ...input, findings: [finding] });
    const episode = byKey.get(finding.episodeKey);
    const only = fixed.proposals.length === 1 ? fixed.proposals[0] : undefined;
    if (episode && only?.op === 'create') items.push({ finding, episode, fallback: only, at });
    else out[at] = fixed.proposals;
  }
  return { out, items };
}

type BatchResult =
  | { kind: 'ok'; proposals: Proposal[]; refused: EngineRefusal[]; changed: Set<string>; tokens: number }
  | { kind: 'fallback'; tokens: number }
  | { kind: 'budget'; tokens: number };

async function writeBatch(
  llm: Llm,
  view: BatchView,
  limits: { maxTokens: number; tokenLimit: number; maxRecordChars: number; maxNoteChars: number },
): Promise<BatchResult> {
  try {
    const { value, usage } = await llm.complete({
      system: SYSTEM_PROMPT,
      // Records reach the model redacted, whichever adapter sits behind the port.
      user: redactText(renderBatch(view, limits)),
      schema: Envelope,
      responseSchema: ResponseSchema,
      maxTokens: limits.maxTokens,
      tokenLimit: limits.tokenLimit,
    });
    return { kind: 'ok', ...readChanges(value.changes, view, llm.name), tokens: totalTokens(usage) };
  } catch (error) {
    // A retry that no longer fits the budget still leaves these findings to the fallback.
    if (error instanceof LlmBudgetError)
      return { kind: totalTokens(error.usage) > 0 ? 'fallback' : 'budget', tokens: totalTokens(error.usage) };
    if (error instanceof LlmOutputError) return { kind: 'fallback', tokens: totalTokens(error.usage) };
    throw error;
  }
}
