import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, versionDigest } from '../../../src/db/audit/keyed.ts';

// Every keyed audit entry covers the digest of canonicalJson(version content): a stored chain
// verifies only while the function gives the same text for the same value, byte for byte.

/** The form every stored chain was written with: the reference a faster version must equal. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const values = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 5 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('a', 'B', 'é', '10', '2', '__proto__')), tie('node'), {
    maxKeys: 6,
  }),
}));

describe('canonicalJson', () => {
  it('gives the text the stored chains were written with, for any JSON-like value', () => {
    fc.assert(
      fc.property(values.node, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys at every level and leaves out undefined properties', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x' }, undefined], A: null })).toBe(
      '{"A":null,"a":[{"c":"x"},],"b":1}',
    );
  });

  it('digests a version as the chains recorded it', () => {
    const version = {
      claim: 'u-dan prefers aisle seats over window seats',
      evidence: [
        { recordId: '01J0000000000000000000000A', objectKey: 'raw/k.jsonl.gz', line: 3, contentHash: 'ab' },
        { recordId: '01J0000000000000000000000B', objectKey: 'raw/k.jsonl.gz', line: 9, contentHash: 'cd' },
      ],
    };
    const recorded = reference({ claim: version.claim, structure: null, evidence: version.evidence });
    expect(versionDigest(version)).toBe(createHash('sha256').update(recorded, 'utf8').digest('hex'));
  });
});
