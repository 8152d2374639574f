import { describe, expect, it } from 'vitest';
import { redact, sensitiveLeft } from '../../../policies/redaction.ts';
import { ibanPrefix, ibanValid, isCardNumber, isRandomToken, luhnValid } from '../../../policies/redaction-checks.ts';

describe('checks', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['79927398713', true],
  ])('Luhn %s → %s', (digits, ok) => expect(luhnValid(digits)).toBe(ok));

  it.each([
    ['a Visa number', '4111 1111 1111 1111', true],
    ['an Amex number', '378282246310005', true],
    ['epoch milliseconds that pass Luhn', '1767225600008', false],
    ['a Luhn-valid number of no network', '0000000000000000', false],
    ['a Visa number failing Luhn', '4111 1111 1111 1112', false],
  ])('card: %s', (_label, text, ok) => expect(isCardNumber(text)).toBe(ok));

  it.each([
    ['compact', 'DE89370400440532013000', true],
    ['spaced', 'DE89 3704 0044 0532 0130 00', true],
    ['one digit off', 'DE89370400440532013001', false],
    ['too short', 'DE8937040044', false],
  ])('IBAN %s', (_label, text, ok) => expect(ibanValid(text)).toBe(ok));

  it('takes the longest valid prefix of a spaced IBAN', () =>
    expect(ibanPrefix('DE89 3704 0044 0532 0130 00 2026')).toBe('DE89 3704 0044 0532 0130 00'));

  it.each([
    ['a random token', 'Zx8Qp2Lm9Rt4Vb7Nc3Kd6Hf1Js5Gw0Ty', true],
    ['a ULID', '01JH3K5M8N9P0Q1R2S3T4V5W6X', false],
    ['a sha256 digest', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', false],
    ['a camel-case name', 'getUserByIdHandlerVersion2', false],
  ])('random token: %s → %s', (_label, token, ok) => expect(isRandomToken(token)).toBe(ok));
});

describe('redact', () => {
  it.each([
    ['private_key', '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----', '[REDACTED_KEY]'],
    ['private_key (cut short)', 'pem -----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN', 'pem [REDACTED_KEY]'],
    ['jwt', 'tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature1', 'tok [REDACTED_SECRET]'],
    ['aws_access_key', 'id ASIAY34FZKBOKMUTVV7A', 'id [REDACTED_SECRET]'],
    ['aws_secret_key', 'AWS secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS secret: [REDACTED_SECRET]'],
    ['github_token', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', '[REDACTED_SECRET]'],
    ['slack_token', 'xoxp-1234567890-abcdefghij', '[REDACTED_SECRET]'],
    ['google_api_key', 'AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe', '[REDACTED_SECRET]'],
    ['api_key', 'key sk-live-abcdefghijklmnop1234', 'key [REDACTED_SECRET]'],
    ['bearer_token', 'Bearer abcdefghijklmnop1234', 'Bearer [REDACTED_SECRET]'],
    ['database_url', 'postgres://app:pw1@db/x', 'postgres://app:[REDACTED_SECRET]@db/x'],
    ['password_phrase', 'my password is hunter2!', 'my password is [REDACTED_SECRET]!'],
    ['password_phrase (German)', 'mein Passwort ist Sommer2024', 'mein Passwort ist [REDACTED_SECRET]'],
    ['password_phrase (French)', 'mot de passe : soleil99', 'mot de passe : [REDACTED_SECRET]'],
    ['password_phrase (Spanish)', 'mi contraseña es gato123.', 'mi contraseña es [REDACTED_SECRET].'],
    ['password_assignment', 'token=abc123', 'token=[REDACTED_SECRET]'],
    ['email (Unicode)', 'an jürgen@bücher.de', 'an [REDACTED_EMAIL]'],
    ['iban', 'IBAN DE89 3704 0044 0532 0130 00.', 'IBAN [REDACTED_IBAN].'],
    ['card_number', 'card 4111-1111-1111-1111 ok', 'card [REDACTED_CARD] ok'],
    ['ssn', 'SSN 123-45-6789', 'SSN [REDACTED_SSN]'],
    ['phone', 'call +49 30 12345678 now', 'call [REDACTED_PHONE] now'],
    // Texts without a decimal digit skip the phone matcher: digits of other scripts still count.
    ['phone (fullwidth digits)', 'call +４４ ２０ ７９４６ ０９５８ now', 'call [REDACTED_PHONE] now'],
    ['phone (Arabic-Indic digits)', 'ring +٤٤ ٢٠ ٧٩٤٦ ٠٩٥٨', 'ring [REDACTED_PHONE]'],
    ['high_entropy_token', 'secret Zx8Qp2Lm9Rt4Vb7Nc3Kd6Hf1Js5Gw0Ty', 'secret [REDACTED_SECRET]'],
  ])('%s', (_rule, text, out) => {
    const r = redact(text);
    expect(r.text).toBe(out);
    expect(sensitiveLeft(r.text)).toEqual([]);
    expect(redact(r.text).text).toBe(r.text);
  });

  it.each([
    ['amounts and dates', 'The total is $1,299.00 on 2026-12-03.'],
    ['epoch milliseconds', 'observedAt 1767225600008'],
    ['a bare order number', 'order 4155550100'],
    ['record ids and digests', `01JH3K5M8N9P0Q1R2S3T4V5W6X ${'ab'.repeat(32)}`],
    ['a password that is only talked about', 'The password is incorrect.'],
    ['an archive key', 'raw/tenant=acme/date=2026-12-03/producer-0001.jsonl.gz'],
  ])('leaves %s alone', (_label, text) => expect(redact(text)).toEqual({ text, applied: [] }));
});
