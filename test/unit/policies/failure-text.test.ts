import { describe, expect, it } from 'vitest';
import { foreignFailureText, ownFailureText, stackWithText } from '../../../policies/failure-text.ts';

const KEY = 'raw/tenant=t1/date=2026-11-02/it-01M6DQS9M0B6GR48QH7ECGPZ10-03598729922e.jsonl.gz';

describe('foreignFailureText', () => {
  it.each([
    [
      'a JSON parse error quoting the text around the fault',
      `Unexpected token 'z', ..."userIds":[zephyrine."... is not valid JSON`,
      `Unexpected token 'z', ..."…"... is not valid JSON`,
    ],
    [
      'a JSON parse error quoting a whole short input',
      `Unexpected token 'Z', "Zephyrine Okonkwo" is not valid JSON`,
      `Unexpected token 'Z', "…" is not valid JSON`,
    ],
    [
      'a database error quoting the value it refused',
      `invalid input value for enum note_status: "Zephyrine"`,
      `invalid input value for enum note_status: "…"`,
    ],
    ['an unpaired quote: cut to the end', `value "Zephyrine Okonkwo was cut`, `value "…`],
    ['an e-mail address outside quotes', `no row for zephyrine.okonkwo@example.com`, `no row for [REDACTED_EMAIL]`],
    ['a message without quotes', 'connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.1:5432'],
  ])('%s', (_, message, expected) => {
    expect(foreignFailureText(message)).toBe(expected);
  });
});

describe('ownFailureText', () => {
  it('keeps archive keys and ids, and redacts an address', () => {
    expect(ownFailureText(`manifest ${KEY} is invalid for zephyrine.okonkwo@example.com`)).toBe(
      `manifest ${KEY} is invalid for [REDACTED_EMAIL]`,
    );
  });

  it('keeps an operator hint in quotes (own messages are built from ids)', () => {
    const hint = 'successor: keeping 01KB0 would contradict; use "successor": "retire"';
    expect(ownFailureText(hint)).toBe(hint);
  });
});

describe('stackWithText', () => {
  it('keeps the frames and replaces the message lines', () => {
    const stack = `SyntaxError: Unexpected token 'z', ..."[zephyrine."... is not valid JSON\n    at JSON.parse (<anonymous>)\n    at readManifest (manifest-io.ts:16:18)`;
    expect(stackWithText('SyntaxError', 'cleaned', stack)).toBe(
      'SyntaxError: cleaned\n    at JSON.parse (<anonymous>)\n    at readManifest (manifest-io.ts:16:18)',
    );
  });
});
