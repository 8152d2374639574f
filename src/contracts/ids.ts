import { z } from 'zod';

/** Crockford base32 ULID: 26 characters, time-sortable. */
export const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'expected a ULID (26 Crockford base32 characters)');

/**
 * Tenant ids appear in object keys (`raw/tenant=<t>/…`) and workflow ids, so they are
 * restricted to characters that are safe in both.
 */
export const TenantId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'expected 1-64 characters: letters, digits, _ . - (not starting with _ . -)',
  );

export const IsoDateTime = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 date-time' });
