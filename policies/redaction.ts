import { findPhoneNumbersInText } from 'libphonenumber-js/max';
import { memoByText } from './memo.ts';
import { ibanPrefix, isCardNumber, isRandomToken } from './redaction-checks.ts';

/**
 * Personal data and secrets never reach a note, a model, an audit reason or a run's stored
 * work: text is redacted before any of them, and validation rejects a claim in which any rule
 * still finds something. Each rule finds spans; checks (Luhn, mod-97, issuer prefixes, entropy)
 * keep numbers and identifiers that only look sensitive.
 */

interface Span {
  start: number;
  end: number;
  replacement: string;
}

export interface RedactionRule {
  name: string;
  find(text: string): Span[];
}

const SECRET = '[REDACTED_SECRET]';
const NOT_REDACTED = String.raw`(?!\[REDACTED)`;

/** A rule from a pattern: the whole match, or only group `value` when the pattern names one, is replaced. */
function patternRule(
  name: string,
  pattern: RegExp,
  replacement: string,
  keep: (match: string) => string | undefined = (m) => m,
): RedactionRule {
  const withIndices = new RegExp(pattern.source, pattern.flags.includes('d') ? pattern.flags : `${pattern.flags}d`);
  return {
    name,
    find(text) {
      const spans: Span[] = [];
      for (const m of text.matchAll(withIndices)) {
        const value = m.indices?.groups?.['value'];
        const [from, to] = value ?? [m.index, m.index + m[0].length];
        const kept = keep(text.slice(from, to));
        if (kept === undefined) continue;
        spans.push({ start: from, end: from + kept.length, replacement });
      }
      return spans;
    },
  };
}

/** Words that say something about a password rather than being one ("the password is incorrect"). */
const NOT_A_PASSWORD = String.raw`(?!(?:incorrect|invalid|wrong|required|expired|missing|too|not|empty|correct|reset|changed|set|falsch|ungultig|ungültig|abgelaufen|invalide|expire|expiré|incorrecto|inválida|invalida|caducada)\b)`;

const PASSWORD_WORDS = String.raw`(?:password|passwd|pwd|passphrase|passcode|pin|passwort|kennwort|mot de passe|mdp|contraseña|contrasena|clave|senha)`;

export const REDACTION_RULES: readonly RedactionRule[] = [
  patternRule(
    'private_key',
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s]|\\[nr])*)/g,
    '[REDACTED_KEY]',
  ),
  patternRule('jwt', /\b(?:Bearer\s+)?eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, SECRET),
  patternRule('aws_access_key', /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b/g, SECRET),
  patternRule(
    'aws_secret_key',
    /\baws.{0,20}?(?:secret|key)\w*["']?\s*[:=]?\s*["']?(?<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    SECRET,
  ),
  patternRule('github_token', /\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, SECRET),
  patternRule('slack_token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, SECRET),
  patternRule('google_api_key', /\bAIza[0-9A-Za-z_-]{35}/g, SECRET),
  patternRule(
    'api_key',
    /\b(?:sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{16,})\b/g,
    SECRET,
  ),
  patternRule('bearer_token', /\bBearer\s+(?<value>(?!\[REDACTED)[A-Za-z0-9._~+/-]{16,}=*)/g, SECRET),
  patternRule(
    'database_url',
    new RegExp(String.raw`\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?<value>${NOT_REDACTED}[^\s@/]+)@`, 'gi'),
    SECRET,
  ),
  patternRule(
    'password_phrase',
    new RegExp(
      String.raw`\b${PASSWORD_WORDS}\s*(?:(?:is|was|ist|lautet|war|est|c'est|es|era|é)(?!\p{L})|:|=|->)\s*["'«]?\s*(?<value>${NOT_REDACTED}${NOT_A_PASSWORD}[^\s"'»,;]+?)(?=["'»,;]|[.!?]?(?:\s|$))`,
      'giu',
    ),
    SECRET,
  ),
  patternRule(
    'password_assignment',
    new RegExp(
      String.raw`\b(?:secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\s*[:=]\s*["']?(?<value>${NOT_REDACTED}[^\s"',;]+)`,
      'gi',
    ),
    SECRET,
  ),
  patternRule(
    'email',
    /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}(?![\p{L}\p{N}])/gu,
    '[REDACTED_EMAIL]',
  ),
  patternRule(
    'iban',
    /\b[A-Z]{2}\d{2}(?: [A-Z0-9]{1,4}){3,8}\b|\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b/g,
    '[REDACTED_IBAN]',
    ibanPrefix,
  ),
  patternRule('card_number', /(?<![\d-])\d(?:[ -]?\d){11,18}(?![\d])/g, '[REDACTED_CARD]', (m) =>
    isCardNumber(m) ? m : undefined,
  ),
  patternRule(
    'ssn',
    /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b|\b(?:ssn|social security(?: number)?)\W{0,5}(?<value>\d{9}|\d{3} \d{2} \d{4})\b/gi,
    '[REDACTED_SSN]',
  ),
  { name: 'phone', find: phoneSpans },
  patternRule('high_entropy_token', /(?<![\w/+=-])[A-Za-z0-9+/_=-]{24,}(?![\w/+=-])/g, SECRET, (m) =>
    isRandomToken(m) ? m : undefined,
  ),
];

const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * International numbers (with +), and North American numbers written with separators; a bare
 * run of digits (an order number, a timestamp) is not taken for a phone number.
 */
function phoneSpans(text: string): Span[] {
  // Every candidate the matcher considers starts with a decimal digit: a text without one holds
  // no number, and skipping it saves the matcher's scan, the costliest part of redaction.
  if (!DECIMAL_DIGIT.test(text)) return [];
  const international = findPhoneNumbersInText(text);
  const national = findPhoneNumbersInText(text, 'US').filter((m) => /[\s().-]/.test(text.slice(m.startsAt, m.endsAt)));
  return [...international, ...national].map((m) => ({
    start: m.startsAt,
    end: m.endsAt,
    replacement: '[REDACTED_PHONE]',
  }));
}

function applyRule(text: string, rule: RedactionRule): string {
  const spans = rule.find(text).sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    out += text.slice(at, s.start) + s.replacement;
    at = s.end;
  }
  return out + text.slice(at);
}

export interface Redaction {
  text: string;
  /** Rule names that matched, in rule order, once each. */
  applied: string[];
}

/** Claims are redacted when validated and again when stored: the same text is redacted once. */
export const redact: (text: string) => Readonly<Redaction> = memoByText(redactText);

function redactText(text: string): Redaction {
  let out = text;
  const applied: string[] = [];
  for (const rule of REDACTION_RULES) {
    const next = applyRule(out, rule);
    if (next !== out) applied.push(rule.name);
    out = next;
  }
  return { text: out, applied };
}

/** Names of the rules that would still change `text`: empty when it is clean. */
export const sensitiveLeft: (text: string) => readonly string[] = memoByText((text: string) =>
  REDACTION_RULES.filter((r) => r.find(text).length > 0).map((r) => r.name),
);
