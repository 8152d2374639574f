import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// The one definition of the search attributes Nocturne's workflows set. `nocturne stack up`
// registers them from here; deploy/temporal-namespace.sh carries a copy that a unit test checks.

/** The tenant a consolidation, conflict monitor or run belongs to. */
export const TENANT = defineSearchAttributeKey('NocturneTenant', SearchAttributeType.KEYWORD);
/** What started a consolidation: schedule, conflict, manual. */
export const TRIGGER = defineSearchAttributeKey('NocturneTrigger', SearchAttributeType.KEYWORD);
/** Where a consolidation stands: running, awaiting_approval, completed, partial, rejected. */
export const STATUS = defineSearchAttributeKey('NocturneStatus', SearchAttributeType.KEYWORD);

const SEARCH_ATTRIBUTE_KEYS = [TENANT, TRIGGER, STATUS] as const;
export const SEARCH_ATTRIBUTE_NAMES = SEARCH_ATTRIBUTE_KEYS.map((key) => key.name);

/** The type names the Temporal CLI takes (`--search-attribute NocturneTenant=Keyword`). */
const CLI_TYPE_NAMES = { [SearchAttributeType.KEYWORD]: 'Keyword' } as const;

/** Name → CLI type name, as `temporal server start-dev --search-attribute` and `operator` take them. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  SEARCH_ATTRIBUTE_KEYS.map((key) => [key.name, CLI_TYPE_NAMES[key.type]]),
);
