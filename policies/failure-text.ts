import { redactText } from './redaction-fields.ts';

/**
 * What a failure may say. An activity's failure (message, stack trace, cause chain) is recorded
 * in the workflow's Temporal history, kept for the namespace's retention where an erasure cannot
 * reach: it names ids, keys and counts, never the words of a record or a claim.
 */

/** The longest failure message kept; the rest is cut (a message is a diagnosis, not a dump). @default 600 */
export const FAILURE_TEXT_LIMIT = 600;

/**
 * The message of an error Nocturne raises itself: built from ids, keys and counts, so only the
 * redaction detectors run on it (a user id may be an e-mail address).
 */
export function ownFailureText(message: string): string {
  return redactKeepingKeys(message).slice(0, FAILURE_TEXT_LIMIT);
}

/**
 * The message of an error other code raised. Such messages quote what they refused: JSON.parse
 * quotes the text around the fault (`Unexpected token 'z', ..."userIds":[zephyrine."... is not
 * valid JSON`), PostgreSQL the value it could not take (`invalid input value for enum …: "…"`).
 * Everything from the first double quote to the last becomes `"…"` (pairs cannot be trusted: a
 * quoted excerpt may itself hold quotes), then the redaction detectors run.
 */
export function foreignFailureText(message: string): string {
  const first = message.indexOf('"');
  const last = message.lastIndexOf('"');
  let cut = message;
  if (first >= 0 && last > first) cut = `${message.slice(0, first)}"…"${message.slice(last + 1)}`;
  else if (first >= 0) cut = `${message.slice(0, first)}"…`;
  return redactKeepingKeys(cut).slice(0, FAILURE_TEXT_LIMIT);
}

/** Archive keys (`raw/tenant=…/…`, the archive's own safe characters): what a failure should name. */
const ARCHIVE_KEY = /\b(?:raw|audit|index)\/[A-Za-z0-9_.=/-]+/g;

/**
 * The redaction detectors, except on archive keys: their producer and sequence segments look
 * like random tokens to the entropy detector, and a failure that cannot name its object is no
 * diagnosis. Keys hold no `@` or space, so no address or phrase hides in one.
 */
function redactKeepingKeys(text: string): string {
  const keys: string[] = [];
  const masked = text.replace(ARCHIVE_KEY, (key) => `\u27e6${keys.push(key) - 1}\u27e7`);
  return redactText(masked).replace(/\u27e6(\d+)\u27e7/g, (_, i: string) => keys[Number(i)] ?? '');
}

/** A stack trace's frames only: its first lines repeat the message, which is replaced by `text`. */
export function stackWithText(name: string, text: string, stack: string | undefined): string {
  const frames = (stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return [`${name}: ${text}`, ...frames].join('\n');
}
