/**
 * A day that comes back every year has no year: "my birthday is December 5" and "born on March
 * 3" name a day of every year (or of a year not said), so a note keeps them as said instead of
 * completing them with the year they were said in. A birthday that was celebrated on a day is an
 * event and keeps its year ("I celebrated my birthday on March 3").
 */

/** Where a clause ends: a sentence's end, a semicolon, a new line, or a comma before a joining word. */
const BOUNDARY = /[.!?;\n]|,\s*(?:but|and|so|while|though|although|because|whereas)\b/gi;

/** The clause of `text` that holds the characters from `start` to `end`. */
export function clauseAround(text: string, start: number, end: number): string {
  let from = 0;
  let to = text.length;
  for (const b of text.matchAll(BOUNDARY)) {
    const at = b.index ?? 0;
    if (at + b[0].length <= start) from = at + b[0].length;
    else if (at >= end) {
      to = at;
      break;
    }
  }
  return text.slice(from, to);
}

/** A birth, or a birthday or anniversary said to fall on a day. */
const RECURRING = /\b(?:born|(?:birthday|anniversary|name day)(?:'s|’s| is| falls| comes))\b/i;

/** Whether the day named from `start` to `end` of `text` is one that comes back every year. */
export function isRecurringDay(text: string, start: number, end: number): boolean {
  return RECURRING.test(clauseAround(text, start, end));
}
