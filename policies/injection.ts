/**
 * "Data, not instructions": text that came from tools or retrieved content and reads like an
 * instruction to the agent is never committed as memory.
 */
export const INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /\b(ignore|disregard|forget)\b.{0,40}\b(previous|prior|above|earlier|all)\b.{0,20}\b(instructions?|rules?|prompts?|messages?)\b/i,
  /\b(you are now|act as|pretend to be|from now on,? you)\b/i,
  /\b(system prompt|developer message|jailbreak)\b/i,
  /\b(send|email|forward|upload|post|transfer|exfiltrate)\b.{0,60}\b(to|at)\b\s+\S+@\S+/i,
  /\b(send|email|forward|upload|transfer)\b.{0,40}\b(customer|user|password|credential|secret|api key|token|list|data)s?\b.{0,40}\b(to|at)\b/i,
  /\b(do not|don't) (tell|inform|mention)\b.{0,30}\b(user|anyone)\b/i,
  /\b(run|execute)\b.{0,20}\b(command|shell|script|curl|rm -rf)\b/i,
];

export function looksLikeInstruction(text: string): boolean {
  return INSTRUCTION_PATTERNS.some((p) => p.test(text));
}

/** Sources whose content is data only. */
export const UNTRUSTED_SOURCES = new Set(['tool', 'retrieved']);
