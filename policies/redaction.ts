/**
 * Personal data and secrets never reach a note: claims are redacted before validation, and
 * validation rejects a claim in which any of these patterns survives.
 */
export const REDACTION_RULES: ReadonlyArray<{ name: string; pattern: RegExp; replacement: string }> = [
  {
    name: 'private_key',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
    replacement: '[REDACTED_KEY]',
  },
  {
    name: 'api_key',
    pattern: /\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{16,}\b/g,
    replacement: '[REDACTED_SECRET]',
  },
  { name: 'aws_access_key', pattern: /\bAKIA[0-9A-Z]{16}\b/g, replacement: '[REDACTED_SECRET]' },
  { name: 'bearer_token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g, replacement: 'Bearer [REDACTED_SECRET]' },
  {
    name: 'password_assignment',
    pattern: /\b(password|passwd|secret|token|api[_-]?key)\s*[:=]\s*(?!\[REDACTED)\S+/gi,
    replacement: '$1=[REDACTED_SECRET]',
  },
  { name: 'email', pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g, replacement: '[REDACTED_EMAIL]' },
  { name: 'card_number', pattern: /\b(?:\d[ -]?){13,16}\b/g, replacement: '[REDACTED_CARD]' },
  { name: 'iban', pattern: /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}\b/g, replacement: '[REDACTED_IBAN]' },
  {
    name: 'phone',
    pattern: /(?<![\w$])\+?\d{1,3}[\s.-]?\(?\d{2,4}\)?[\s.-]\d{3,4}[\s.-]\d{3,4}\b/g,
    replacement: '[REDACTED_PHONE]',
  },
];

export interface Redaction {
  text: string;
  /** Rule names that matched, in rule order, once each. */
  applied: string[];
}

export function redact(text: string): Redaction {
  let out = text;
  const applied: string[] = [];
  for (const rule of REDACTION_RULES) {
    const next = out.replace(rule.pattern, rule.replacement);
    if (next !== out) applied.push(rule.name);
    out = next;
  }
  return { text: out, applied };
}

/** Names of the rules that would still change `text`: empty when it is clean. */
export function sensitiveLeft(text: string): string[] {
  return REDACTION_RULES.filter((r) => new RegExp(r.pattern.source, r.pattern.flags).test(text)).map((r) => r.name);
}
