/**
 * Checks that tell a secret or an account number from a number or string that only looks like
 * one: checksums where the format has one (Luhn for cards, mod-97 for IBANs), issuer prefixes,
 * and the character spread of a random token.
 */

export const digitsOf = (s: string): string => s.replace(/\D/g, '');

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** Issuer prefixes and lengths of the card networks; no network issues numbers starting with 0 or 1 (epoch milliseconds do). */
const CARD_NETWORKS: ReadonlyArray<{ prefix: RegExp; lengths: readonly number[] }> = [
  { prefix: /^4/, lengths: [13, 16, 19] },
  { prefix: /^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, lengths: [16] },
  { prefix: /^3[47]/, lengths: [15] },
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 16, 19] },
  { prefix: /^(?:6011|65|64[4-9]|62|35)/, lengths: [16, 17, 18, 19] },
  { prefix: /^(?:5[06-9]|6)/, lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
];

export function isCardNumber(candidate: string): boolean {
  const d = digitsOf(candidate);
  if (!CARD_NETWORKS.some((n) => n.prefix.test(d) && n.lengths.includes(d.length))) return false;
  return luhnValid(d) && !/^(\d)\1+$/.test(d);
}

/** ISO 13616: move the first four characters to the end, letters to numbers, the whole mod 97 is 1. */
export function ibanValid(candidate: string): boolean {
  const s = candidate.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const c of moved) {
    const v = c >= 'A' ? String(c.charCodeAt(0) - 55) : c;
    for (const digit of v) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}

/**
 * The longest prefix of a spaced IBAN candidate (groups of four) that passes mod-97: a greedy
 * match may have taken a following word or number.
 */
export function ibanPrefix(candidate: string): string | undefined {
  const groups = candidate.split(' ');
  for (let n = groups.length; n >= 4; n -= 1) {
    const head = groups.slice(0, n).join(' ');
    if (ibanValid(head)) return head;
  }
  return ibanValid(candidate) ? candidate : undefined;
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/** Bits per character a random-looking token reaches at least. @default 3.8 */
export const TOKEN_MIN_ENTROPY = 3.8;

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const HEX = /^[0-9a-fA-F-]+$/;

/**
 * A token that reads as random: upper and lower case letters and digits mixed, spread out,
 * and not one of the identifiers the system writes itself (ULIDs, hex digests, UUIDs).
 */
export function isRandomToken(token: string): boolean {
  if (ULID.test(token) || HEX.test(token)) return false;
  if (!/[a-z]/.test(token) || !/[A-Z]/.test(token) || !/\d/.test(token)) return false;
  if ((token.match(/\d/g) ?? []).length < 2) return false;
  return entropy(token) >= TOKEN_MIN_ENTROPY;
}
