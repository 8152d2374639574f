import { describe, expect, it } from 'vitest';
import { CONFIDENCE_CAP, confirm, contradict, initialConfidence, withinCap } from '../../../policies/confidence.ts';
import { resolveConflict, type Contender } from '../../../policies/conflicts.ts';
import { decayFactor, isExpired } from '../../../policies/decay.ts';
import { checkScopeBreadth } from '../../../policies/scope.ts';
import { seedFrom } from '../../../policies/random.ts';

const now = new Date('2026-11-30T00:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);

describe('confidence by source', () => {
  it.each([
    ['user_requirement', 0.9],
    ['user_correction', 0.9],
    ['approval', 0.85],
    ['tool_fact', 0.8],
    ['inference', 0.5],
  ] as const)('%s starts at %d', (source, value) => expect(initialConfidence(source)).toBe(value));

  it('rises with confirmations but never past the cap; an inference stays ≤ 0.6', () => {
    let c = initialConfidence('inference');
    for (let i = 0; i < 50; i++) c = confirm(c, 'inference');
    expect(c).toBeLessThanOrEqual(0.6);
    expect(c).toBeGreaterThan(0.59);
    expect(confirm(0.9, 'user_correction')).toBeGreaterThan(0.9);
    expect(withinCap(0.61, 'inference')).toBe(false);
    expect(withinCap(CONFIDENCE_CAP.tool_fact, 'tool_fact')).toBe(true);
  });

  it('drops on contradiction', () => expect(contradict(0.9)).toBeCloseTo(0.54, 10));
});

describe('decay', () => {
  it.each([
    ['preference', 180, 0.5],
    ['constraint', 90, 0.5],
    ['tool_behavior', 30, 0.5],
    ['episode_summary', 28, 0.25],
  ] as const)('%s after %d days keeps %d', (kind, days, factor) => {
    expect(decayFactor(kind, daysAgo(days), now)).toBeCloseTo(factor, 10);
  });

  it('expires a note at validUntil', () => {
    expect(isExpired(daysAgo(1), now)).toBe(true);
    expect(isExpired(now, now)).toBe(true);
    expect(isExpired(null, now)).toBe(false);
  });
});

describe('conflicts', () => {
  const c = (over: Partial<Contender>): Contender => ({
    id: 'a',
    sourceKind: 'tool_fact',
    independentSources: 1,
    observedAt: daysAgo(1),
    confidence: 0.8,
    ...over,
  });
  it.each([
    [
      "a tool's fact is not overridden by a user's claim",
      c({ id: 'a', sourceKind: 'user_correction', observedAt: now }),
      c({ id: 'b' }),
      'b',
      'authority',
    ],
    [
      'what people say outranks an inference',
      c({ id: 'a', sourceKind: 'inference' }),
      c({ id: 'b' }),
      'b',
      'authority',
    ],
    [
      'then the more recent observation, however often the older was confirmed',
      c({ id: 'a', observedAt: daysAgo(5), independentSources: 4 }),
      c({ id: 'b' }),
      'b',
      'recency',
    ],
    [
      'then the stronger evidence',
      c({ id: 'a', sourceKind: 'user_correction' }),
      c({ id: 'b', sourceKind: 'user_statement' }),
      'a',
      'evidence',
    ],
    ['more independent sources win', c({ id: 'a' }), c({ id: 'b', independentSources: 3 }), 'b', 'evidence'],
    ['then the more recent observation', c({ id: 'a', observedAt: daysAgo(5) }), c({ id: 'b' }), 'b', 'recency'],
    ['then higher confidence', c({ id: 'a', confidence: 0.9 }), c({ id: 'b' }), 'a', 'confidence'],
    ['then the id, deterministically', c({ id: 'b' }), c({ id: 'a' }), 'a', 'id'],
  ])('%s', (_label, a, b, winner, decidedBy) => {
    expect(resolveConflict(a, b)).toMatchObject({ winner, decidedBy });
    expect(resolveConflict(b, a)).toMatchObject({ winner, decidedBy });
  });
});

describe('scope breadth', () => {
  const facts = { userIds: ['u1', 'u1'], sessionIds: ['s1', 's2'], agentIds: ['ag'], taskTypes: ['t'] };
  it.each([
    [{ level: 'user', key: 'u1' }, facts, true],
    [{ level: 'user', key: 'u1' }, { ...facts, userIds: ['u1', 'u2'] }, false],
    [{ level: 'agent', key: 'ag' }, facts, true],
    [{ level: 'task_type', key: 'other' }, facts, false],
    [{ level: 'tenant', key: 'acme' }, facts, false],
    [{ level: 'tenant', key: 'acme' }, { ...facts, sessionIds: ['s1', 's2', 's3'] }, false],
    [
      { level: 'tenant', key: 'acme' },
      { ...facts, userIds: ['u1', 'u1', 'u1'], sessionIds: ['s1', 's2', 's3'] },
      false,
    ],
    [{ level: 'tenant', key: 'acme' }, { ...facts, userIds: ['u1', 'u2', 'u3'] }, true],
  ] as const)('%o with evidence %o → %s', (scope, evidence, ok) => {
    expect(checkScopeBreadth(scope, evidence).ok).toBe(ok);
  });
});

describe('seedFrom', () => {
  it('is stable and spreads', () => {
    expect(seedFrom('run-1')).toBe(seedFrom('run-1'));
    expect(seedFrom('run-1')).not.toBe(seedFrom('run-2'));
  });
});
