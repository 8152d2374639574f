import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Registered on the server by `nocturne stack up` and deploy/temporal-namespace.sh. */
export const TENANT = defineSearchAttributeKey('NocturneTenant', SearchAttributeType.KEYWORD);
export const TRIGGER = defineSearchAttributeKey('NocturneTrigger', SearchAttributeType.KEYWORD);
export const STATUS = defineSearchAttributeKey('NocturneStatus', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_NAMES = [TENANT.name, TRIGGER.name, STATUS.name] as const;
