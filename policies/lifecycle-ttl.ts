import type { NoteContent } from '../src/contracts/note.ts';

/**
 * How long a note applies, from its evidence. A plan or an appointment (a structure whose time
 * lies after the moment it was said: "my flight is next Tuesday") is over once its day has
 * passed; a past event ("went to a support group on 7 May") stays true, and a preference holds
 * until it is changed, so neither expires. An explicit `time.until` ends any note but a
 * preference, which only a newer preference replaces.
 */

const DAY_MS = 86_400_000;

/** A plan stays recallable this long after the start of its day (the rest of that day). @default 1 day */
export const PLAN_GRACE_MS = DAY_MS;

/** The instant after which the note no longer applies, or null when it does not expire. */
export function expiryOf(content: Pick<NoteContent, 'kind' | 'structure' | 'validFrom'>): string | null {
  const time = content.structure?.time;
  if (!time || content.kind === 'preference') return null;
  if (time.until) return new Date(time.until).toISOString();
  if (!time.at) return null;
  const at = Date.parse(time.at);
  const said = Date.parse(content.validFrom);
  if (!(at > said)) return null;
  const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
  return new Date(dayStart + PLAN_GRACE_MS).toISOString();
}

/** The content with its `validUntil` set from the evidence, unless the writer already set one. */
export function withExpiry<T extends Pick<NoteContent, 'kind' | 'structure' | 'validFrom' | 'validUntil'>>(
  content: T,
): T {
  if (content.validUntil) return content;
  const until = expiryOf(content);
  return until ? { ...content, validUntil: until } : content;
}
