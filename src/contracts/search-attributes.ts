import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// The one definition of the search attributes Nocturne's workflows set. `nocturne stack up`
// registers them from here; deploy/temporal-namespace.sh carries a copy that a unit test checks.

/** The tenant a consolidation, conflict monitor or run belongs to. */
export const TENANT = defineSearchAttributeKey('NocturneTenant', SearchAttributeType.KEYWORD);
/** What started a consolidation: schedule, conflict, manual. */
export const TRIGGER = defineSearchAttributeKey('NocturneTrigger', SearchAttributeType.KEYWORD);
/** Where a consolidation stands: running, awaiting_approval, completed, partial, rejected, failed. */
export const STATUS = defineSearchAttributeKey('NocturneStatus', SearchAttributeType.KEYWORD);

/**
 * The notes a consolidation changed, so the UI finds the run behind a bad note
 * (`NocturneChangedNotes = "<note id>"`). Temporal caps one value at 2 KB, so a run lists at most
 * MAX_CHANGED_NOTE_IDS ids; its current details and its run report list them all.
 */
export const CHANGED_NOTES = defineSearchAttributeKey('NocturneChangedNotes', SearchAttributeType.KEYWORD_LIST);
/** ULIDs of 26 characters: 60 of them stay under the server's 2 KB limit for one value. @default 60 */
export const MAX_CHANGED_NOTE_IDS = 60;

const SEARCH_ATTRIBUTE_KEYS = [TENANT, TRIGGER, STATUS, CHANGED_NOTES] as const;
export const SEARCH_ATTRIBUTE_NAMES = SEARCH_ATTRIBUTE_KEYS.map((key) => key.name);

/** The type names the Temporal CLI takes (`--search-attribute NocturneTenant=Keyword`). */
const CLI_TYPE_NAMES = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
} as const;

/** Name → CLI type name, as `temporal server start-dev --search-attribute` and `operator` take them. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  SEARCH_ATTRIBUTE_KEYS.map((key) => [key.name, CLI_TYPE_NAMES[key.type]]),
);
