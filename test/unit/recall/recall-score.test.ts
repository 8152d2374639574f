import { describe, expect, it } from 'vitest';
import {
  approxTokens,
  candidateIdf,
  candidateMatches,
  DEFAULT_RECALL_SCORE_POLICY,
  explainScore,
  INFLECTED_MATCH,
  isBroaderThanRequest,
  lengthNormalized,
  lexicalMatch,
  scoreCandidate,
  type ScoreInput,
} from '../../../policies/recall-score.ts';

const AT = new Date('2026-06-01T00:00:00.000Z');
const base: ScoreInput = {
  vectorSimilarity: 0.8,
  lexical: 0.5,
  confidence: 0.9,
  importance: 0.5,
  kind: 'preference',
  lastConfirmedAt: AT,
  at: AT,
};
const daysAgo = (d: number) => new Date(AT.getTime() - d * 86_400_000);

describe('recall score policy', () => {
  it('is a named policy whose weights are positive', () => {
    const p = DEFAULT_RECALL_SCORE_POLICY;
    expect(p.name).toBe('hybrid-v2');
    expect(Object.values(p.weights).every((w) => w > 0)).toBe(true);
    expect(p.priorFloor).toBeGreaterThan(0);
    expect(p.priorFloor).toBeLessThan(1);
  });

  it.each<[string, Partial<ScoreInput>, number]>([
    // relevance = (0.65·v + 0.35·t) / 1; prior = (0.45·c + 0.25·i + 0.3·d) / 1; score = rel · (0.6 + 0.4·prior)
    ['perfect match, perfect prior', { vectorSimilarity: 1, lexical: 1, confidence: 1, importance: 1 }, 1],
    [
      'no relevance scores zero whatever the prior',
      { vectorSimilarity: 0, lexical: 0, confidence: 1, importance: 1 },
      0,
    ],
    [
      'negative cosine counts as no similarity',
      { vectorSimilarity: -0.4, lexical: 0, confidence: 1, importance: 1 },
      0,
    ],
    ['vector only', { vectorSimilarity: 1, lexical: 0, confidence: 1, importance: 1 }, 0.65],
    ['text only (not embedded)', { vectorSimilarity: null, lexical: 1, confidence: 1, importance: 1 }, 0.35],
    [
      'zero prior keeps the floor',
      { vectorSimilarity: 1, lexical: 1, confidence: 0, importance: 0, lastConfirmedAt: daysAgo(1_000_000) },
      0.6,
    ],
    [
      'one preference half-life halves decay',
      { vectorSimilarity: 1, lexical: 1, confidence: 1, importance: 1, lastConfirmedAt: daysAgo(180) },
      0.6 + 0.4 * (0.45 + 0.25 + 0.3 * 0.5),
    ],
    ['the worked default example', {}, (0.65 * 0.8 + 0.35 * 0.5) * (0.6 + 0.4 * (0.45 * 0.9 + 0.25 * 0.5 + 0.3))],
    [
      'an agent-wide note for a request about a user or task type gives up a fifth',
      { vectorSimilarity: 1, lexical: 1, confidence: 1, importance: 1, broaderThanRequest: true },
      0.8,
    ],
  ])('%s', (_name, input, expected) => {
    expect(scoreCandidate({ ...base, ...input }).score).toBeCloseTo(expected, 9);
  });

  it.each<[string, Partial<ScoreInput>, Partial<ScoreInput>]>([
    ['higher similarity ranks higher', { vectorSimilarity: 0.9 }, { vectorSimilarity: 0.7 }],
    ['more query terms ranks higher', { lexical: 0.9 }, { lexical: 0.1 }],
    ['higher confidence ranks higher', { confidence: 0.9 }, { confidence: 0.5 }],
    ['higher importance ranks higher', { importance: 0.9 }, { importance: 0.1 }],
    ['recently confirmed ranks higher', { lastConfirmedAt: daysAgo(1) }, { lastConfirmedAt: daysAgo(300) }],
    [
      'a fast-decaying kind fades sooner',
      { kind: 'preference', lastConfirmedAt: daysAgo(30) },
      { kind: 'episode_summary', lastConfirmedAt: daysAgo(30) },
    ],
    [
      'relevance beats standing',
      { vectorSimilarity: 0.9, confidence: 0.3, importance: 0 },
      { vectorSimilarity: 0.3, confidence: 1, importance: 1 },
    ],
  ])('%s', (_name, better, worse) => {
    expect(scoreCandidate({ ...base, ...better }).score).toBeGreaterThan(scoreCandidate({ ...base, ...worse }).score);
  });

  it('reports every part in 0..1', () => {
    const parts = scoreCandidate({ ...base, vectorSimilarity: 1.2, confidence: 7, lexical: -1 });
    for (const v of Object.values(parts)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
  });
});

describe('scope breadth', () => {
  it.each<
    [
      string,
      'session' | 'user' | 'agent' | 'task_type' | 'tenant',
      ('session' | 'user' | 'agent' | 'task_type' | 'tenant')[] | undefined,
      boolean,
    ]
  >([
    ['an agent-wide note, the request names a user', 'agent', ['user', 'agent', 'tenant'], true],
    ['a tenant-wide note, the request names a task type', 'tenant', ['task_type', 'tenant'], true],
    ["the user's own note", 'user', ['user', 'agent', 'tenant'], false],
    ['a task-type note', 'task_type', ['user', 'task_type'], false],
    ['an agent-wide note, the request names only broad scopes', 'agent', ['agent', 'tenant'], false],
    ['any note, the request names no scope', 'tenant', undefined, false],
  ])('%s → %s', (_name, level, requested, broader) => {
    expect(isBroaderThanRequest(level, requested)).toBe(broader);
  });

  it("ranks the requesting user's preference above an equally relevant agent-wide tool note", () => {
    const own = scoreCandidate({ ...base, broaderThanRequest: false });
    const general = scoreCandidate({ ...base, vectorSimilarity: 0.85, broaderThanRequest: true });
    expect(own.score).toBeGreaterThan(general.score);
  });
});

describe('similarity floor', () => {
  it('rescales cosine from the model\'s "unrelated" level, so e5\'s crowded scores spread like the text part', () => {
    const at = (vectorSimilarity: number, similarityFloor?: number) =>
      scoreCandidate({ ...base, vectorSimilarity, ...(similarityFloor !== undefined ? { similarityFloor } : {}) })
        .vector;
    expect(at(0.85)).toBeCloseTo(0.85, 9);
    expect(at(0.85, 0.7)).toBeCloseTo(0.5, 9);
    expect(at(0.7, 0.7)).toBe(0);
    expect(at(0.6, 0.7)).toBe(0);
    expect(at(1, 0.7)).toBeCloseTo(1, 9);
  });
});

describe('recall text helpers', () => {
  it.each<[string, string, number]>([
    ['billing amounts cents', 'The billing API returns amounts in cents.', 1],
    ['billing amounts euros', 'The billing API returns amounts in cents.', 2 / 3],
    ['the of and', 'anything at all', 0],
    ['weather', 'The billing API returns amounts in cents.', 0],
  ])('lexicalMatch(%j, …)', (q, claim, expected) => {
    expect(lexicalMatch(q, claim)).toBeCloseTo(expected, 9);
  });

  it('weighs query words by how few candidates share them: the rare word decides, the shared name barely counts', () => {
    const claims = [
      'Caroline: I went to a support group.',
      'Caroline: I painted a lake.',
      'Caroline: I love camping.',
      'Melanie: I went camping.',
    ];
    const idf = candidateIdf('When did Caroline go camping with the support group?', claims);
    expect(idf.get('caroline')).toBeLessThan(idf.get('camping') as number);
    expect(idf.get('camping')).toBeLessThan(idf.get('support') as number);
    // 3 of 4 claims name Caroline: ln(1 + 1.5/3.5); 1 of 4 holds "support": ln(1 + 3.5/1.5).
    expect(idf.get('caroline')).toBeCloseTo(Math.log(1 + 1.5 / 3.5), 9);
    expect(idf.get('support')).toBeCloseTo(Math.log(1 + 3.5 / 1.5), 9);
    const query = 'Caroline support group';
    const weights = candidateIdf(query, claims);
    expect(lexicalMatch(query, claims[0] as string, weights)).toBe(1);
    // Unweighted, the name alone is a third of the match; weighted, much less.
    expect(lexicalMatch(query, claims[1] as string)).toBeCloseTo(1 / 3, 9);
    expect(lexicalMatch(query, claims[1] as string, weights)).toBeLessThan(0.15);
    expect(lexicalMatch('the of', claims[0] as string, weights)).toBe(0);
  });

  it('candidateMatches gives each claim its IDF-weighted lexicalMatch in one pass', () => {
    const claims = [
      'Caroline: Caroline went to a support group on 7 May 2023.',
      'Caroline: Caroline painted a lake.',
      'Melanie: Melanie went camping with the kids.',
      '',
    ];
    for (const query of ['When did Caroline go to the support group?', 'camping kids Melanie', 'the of', '']) {
      const idf = candidateIdf(query, claims);
      expect(candidateMatches(query, claims)).toEqual(claims.map((c) => lexicalMatch(query, c, idf)));
    }
    expect(candidateMatches('Caroline support group', claims)[0]).toBe(1);
    expect(candidateMatches('anything', [])).toEqual([]);
  });

  it('candidateMatches counts a query word found only in another inflection at INFLECTED_MATCH of its weight', () => {
    const claims = [
      'Melanie: we went camping in the mountains.',
      'Melanie: Melanie camped by the beach.',
      'Caroline: a lake.',
    ];
    const [camping, camped, none] = candidateMatches('Where has Melanie camped?', claims);
    // "camped" is rarer than "melanie" among the candidates, so it weighs more; the first claim holds it as "camping".
    const idf = candidateIdf('Where has Melanie camped?', claims);
    const [melanie, word] = [idf.get('melanie') ?? 0, idf.get('camped') ?? 0];
    const total = melanie + word + (idf.get('where') ?? 0);
    expect(camped).toBeCloseTo((melanie + word) / total);
    expect(camping).toBeCloseTo((melanie + INFLECTED_MATCH * word) / total);
    expect(camping).toBeLessThan(camped as number);
    expect(none).toBe(0);
  });

  it.each<[string, number]>([
    ['', 0],
    ['abc', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['x'.repeat(400), 100],
  ])('approxTokens(%j) = %d', (text, n) => {
    expect(approxTokens(text)).toBe(n);
  });

  it('explains the parts that carried the score', () => {
    expect(explainScore(scoreCandidate({ ...base, vectorSimilarity: null, lexical: 1 }), 'not_embedded')).toContain(
      'not embedded yet',
    );
    expect(explainScore(scoreCandidate({ ...base, vectorSimilarity: null, lexical: 1 }), 'other_model')).toContain(
      'reindex pending',
    );
    expect(explainScore(scoreCandidate({ ...base, vectorSimilarity: 0.9 }), 'compared')).toMatch(
      /semantically close \(0\.90\).*50% of query terms.*confidence 0\.90/,
    );
  });
});

describe('length-normalized word match', () => {
  it('discounts a long text that holds the same words, and leaves the matches alone at b = 0', () => {
    // A short answer and one three times the mean length, both holding every query word.
    const matches = [1, 1, 0.5, 0];
    const lengths = [100, 600, 100, 0];
    expect(lengthNormalized(matches, lengths, 0)).toEqual(matches);
    const [short, long, mid] = lengthNormalized(matches, lengths, 0.75);
    expect(short).toBe(1); // never above the match itself
    expect(long).toBeCloseTo(1 / (0.25 + 0.75 * 3), 6);
    expect(long).toBeLessThan(0.5);
    expect(mid).toBe(0.5); // shorter than the mean: kept
  });
});
