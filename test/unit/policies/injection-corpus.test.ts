import { describe, expect, it } from 'vitest';
import { looksLikeInstruction } from '../../../policies/injection.ts';
import { INJECTIONS, ORDINARY_TOOL_OUTPUTS } from '../../fixtures/security/injection-corpus.ts';

/** Floors the corpus must keep; the measured rates are in docs/SECURITY.md ("Untrusted content"). */
const MIN_DETECTION = 0.95;
const MAX_FALSE_POSITIVES = 0.05;

describe('injection corpus', () => {
  const missed = INJECTIONS.filter((t) => !looksLikeInstruction(t));
  const flagged = ORDINARY_TOOL_OUTPUTS.filter((t) => looksLikeInstruction(t));
  const detection = 1 - missed.length / INJECTIONS.length;
  const falsePositives = flagged.length / ORDINARY_TOOL_OUTPUTS.length;

  it('has at least 50 samples of each', () => {
    expect(INJECTIONS.length).toBeGreaterThanOrEqual(50);
    expect(ORDINARY_TOOL_OUTPUTS.length).toBeGreaterThanOrEqual(50);
  });

  it(`detects at least ${MIN_DETECTION * 100}% of the injections`, () => {
    console.info(
      `injection detection ${(detection * 100).toFixed(1)}% (${INJECTIONS.length - missed.length}/${INJECTIONS.length})`,
    );
    expect({ detection, missed }).toMatchObject({ detection: expect.toSatisfy((d: number) => d >= MIN_DETECTION) });
  });

  it(`flags at most ${MAX_FALSE_POSITIVES * 100}% of ordinary tool outputs`, () => {
    console.info(
      `false positives ${(falsePositives * 100).toFixed(1)}% (${flagged.length}/${ORDINARY_TOOL_OUTPUTS.length})`,
    );
    expect({ falsePositives, flagged }).toMatchObject({
      falsePositives: expect.toSatisfy((r: number) => r <= MAX_FALSE_POSITIVES),
    });
  });
});
