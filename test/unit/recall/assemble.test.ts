import { describe, expect, it } from 'vitest';
import { DEFAULT_RECALL_SCORE_POLICY, scoreCandidate } from '../../../policies/recall-score.ts';
import type { NoteVersion } from '../../../src/contracts/note.ts';
import { assembleContext, type ScoredCandidate } from '../../../src/recall/assemble.ts';

const AT = new Date('2026-06-01T00:00:00.000Z');

function candidate(noteId: string, claim: string, similarity: number): ScoredCandidate {
  const version = {
    noteId,
    tenantId: 't',
    version: 1,
    status: 'active',
    scope: { level: 'tenant', key: 't' },
    kind: 'fact',
    claim,
    evidence: [],
    sourceKind: 'tool_fact',
    confidence: 0.8,
    importance: 0.5,
    validFrom: AT.toISOString(),
    validUntil: null,
    supersededBy: null,
    sourceCount: 1,
    lastConfirmedAt: AT.toISOString(),
    contradictedAt: null,
    createdByRun: null,
    createdAt: AT.toISOString(),
  } satisfies NoteVersion;
  const parts = scoreCandidate({
    vectorSimilarity: similarity,
    lexical: 0,
    confidence: 0.8,
    importance: 0.5,
    kind: 'fact',
    lastConfirmedAt: AT,
    at: AT,
  });
  return { version, parts, why: '' };
}

const policy = DEFAULT_RECALL_SCORE_POLICY;

describe('assembleContext', () => {
  it('orders by score and stops at k', () => {
    const out = assembleContext(
      [candidate('a', 'alpha one', 0.2), candidate('b', 'beta two', 0.9), candidate('c', 'gamma three', 0.5)],
      { k: 2, tokenBudget: undefined, policy },
    );
    expect(out.items.map((i) => i.version.noteId)).toEqual(['b', 'c']);
  });

  it('folds a near-duplicate into the better-scored claim', () => {
    const out = assembleContext(
      [
        candidate('a', 'The export tool times out on pages over 500 rows.', 0.7),
        candidate('b', 'The export tool times out on pages over 500 rows!', 0.9),
        candidate('c', 'Invoices are in cents.', 0.5),
      ],
      { k: 10, tokenBudget: undefined, policy },
    );
    expect(out.items.map((i) => i.version.noteId)).toEqual(['b', 'c']);
    expect(out.items[0]?.duplicates).toEqual([{ noteId: 'a', version: 1 }]);
    expect(out.duplicatesFolded).toBe(1);
  });

  it.each<[number, string[]]>([
    [1, []],
    [5, ['b']],
    [8, ['b']],
    [13, ['b', 'c']],
    [100, ['b', 'a', 'c']],
  ])('with a budget of %d tokens keeps %j, skipping what does not fit', (budget, expected) => {
    // b: 20 chars → 5 tokens, a: 40 chars → 10 tokens, c: 32 chars → 8 tokens
    const out = assembleContext(
      [candidate('a', 'x'.repeat(40), 0.8), candidate('b', 'y'.repeat(20), 0.9), candidate('c', 'z'.repeat(32), 0.5)],
      { k: 10, tokenBudget: budget, policy },
    );
    expect(out.items.map((i) => i.version.noteId)).toEqual(expected);
    expect(out.tokens).toBeLessThanOrEqual(budget);
    expect(out.tokens).toBe(out.items.reduce((s, i) => s + i.tokens, 0));
  });
});
