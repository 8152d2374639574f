import { describe, expect, it } from 'vitest';
import { redact } from '../../../policies/redaction.ts';
import { ORDINARY, SENSITIVE } from '../../fixtures/security/secrets-corpus.ts';

/** Floors the corpus must keep; the measured rates are in docs/SECURITY.md ("Secrets and personal data"). */
const MIN_RECALL = 0.95;
const MAX_FALSE_POSITIVES = 0.05;

describe('secrets and personal data corpus', () => {
  const leaked = SENSITIVE.filter((x) => redact(x.text).text.includes(x.secret));
  const changed = ORDINARY.filter((t) => redact(t).text !== t);
  const recall = 1 - leaked.length / SENSITIVE.length;
  const falsePositives = changed.length / ORDINARY.length;

  it('has at least 50 sensitive and 50 ordinary samples', () => {
    expect(SENSITIVE.length).toBeGreaterThanOrEqual(50);
    expect(ORDINARY.length).toBeGreaterThanOrEqual(50);
  });

  it(`redacts at least ${MIN_RECALL * 100}% of the sensitive values`, () => {
    console.info(
      `redaction recall ${(recall * 100).toFixed(1)}% (${SENSITIVE.length - leaked.length}/${SENSITIVE.length})`,
    );
    expect({ recall, leaked }).toMatchObject({ recall: expect.toSatisfy((r: number) => r >= MIN_RECALL) });
  });

  it(`changes at most ${MAX_FALSE_POSITIVES * 100}% of ordinary texts`, () => {
    console.info(
      `redaction false positives ${(falsePositives * 100).toFixed(1)}% (${changed.length}/${ORDINARY.length})`,
    );
    expect({ falsePositives, changed }).toMatchObject({
      falsePositives: expect.toSatisfy((r: number) => r <= MAX_FALSE_POSITIVES),
    });
  });
});
