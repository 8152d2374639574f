import { redactText } from '../../policies/redaction-fields.ts';
import type { CompletionRequest, Llm } from './llm.ts';

/**
 * A model port that never sends personal data or secrets: both prompts are redacted before the
 * adapter sees them. Redaction is idempotent, so a caller that redacted already loses nothing.
 */
export function redactingLlm(llm: Llm): Llm {
  return {
    name: llm.name,
    complete<T>(request: CompletionRequest<T>) {
      return llm.complete({ ...request, system: redactText(request.system), user: redactText(request.user) });
    },
  };
}
