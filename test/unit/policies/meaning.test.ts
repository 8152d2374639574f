import { describe, expect, it } from 'vitest';
import { polarWords } from '../../../policies/meaning/negation.ts';
import { evidenceForms, missingForms } from '../../../policies/meaning/normalize.ts';

/** The word-level rules validation by meaning is built from. */

const denied = (text: string) =>
  polarWords(text)
    .filter((w) => w.denied)
    .map((w) => w.form);

describe('negation scope', () => {
  it.each([
    ['The billing API does not return amounts in cents', ['return', 'amount', 'cent']],
    ["The billing API doesn't return amounts in cents", ['return', 'amount', 'cent']],
    ['I asked for an aisle seat, not a window seat.', ['window', 'seat']],
    ['u-dan prefers aisle seats over window seats', ['window', 'seat']],
    ['Use the ledger instead of the invoice list', ['invoic', 'list']],
    ['I never drink tea, but coffee is fine', ['drink', 'tea']],
    ['The export works without pagination.', ['pagination']],
    ['The agent refused to issue the refund', ['issu', 'refund']],
    ['No, it was moved to 4pm.', []],
    ['Refunds over $100 need a manager approval id', []],
    ['The user would rather pay by card than cash', ['cash']],
    ['Invoices over $5,000 are more than the limit', []],
  ])('%s → denies %j', (text, expected) => {
    expect(denied(text)).toEqual(expected);
  });
});

describe('a phrase found in evidence modulo wording', () => {
  const evidence = evidenceForms(
    'refunds over $100 need a manager approval id; upstream timeout after 30s (pageSize=1000); 1,840 rows; two invoices',
  );
  it.each([
    ['a manager approval id', []],
    ['manager approval IDs', []],
    ['100 dollars', []],
    ['$100', []],
    ['1840 rows', []],
    ['2 invoices', []],
    ['30 seconds', []],
    ['times out', []],
    ['page size 1000', []],
    ['a director approval id', ['director']],
    ['$500', ['500']],
    ['45 seconds', ['45']],
  ])('%s → missing %j', (phrase, missing) => {
    expect(missingForms(phrase, evidence)).toEqual(missing);
  });

  it('takes a word that names an object property for a word, not a unit', () => {
    const forms = evidenceForms('the constructor field is required');
    expect(forms.has('constructor')).toBe(true);
    expect([...forms].every((f) => typeof f === 'string')).toBe(true);
    expect(missingForms('the constructor', forms)).toEqual([]);
    expect(missingForms('the constructor', evidenceForms('the valueOf field'))).toEqual(['constructor']);
  });
});
