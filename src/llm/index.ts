import type { Config } from '../config.ts';
import type { Llm } from './llm.ts';
import { createOllamaLlm } from './ollama.ts';
import { createOpenAiLlm } from './openai.ts';
import { redactingLlm } from './redacting.ts';

export type { Completion, CompletionRequest, Llm, LlmUsage } from './llm.ts';
export { LlmBudgetError, LlmOutputError } from './llm.ts';
export { redactingLlm } from './redacting.ts';

/** The configured model (prompts redacted before they leave), or undefined when the deterministic engine should run alone. */
export function openLlm(config: Config['llm']): Llm | undefined {
  const llm = openAdapter(config);
  return llm ? redactingLlm(llm) : undefined;
}

function openAdapter(config: Config['llm']): Llm | undefined {
  switch (config.provider) {
    case 'none':
      return undefined;
    case 'openai':
      return createOpenAiLlm({
        url: config.url,
        model: config.model,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
      });
    case 'ollama':
      return createOllamaLlm({ url: config.url, model: config.model });
  }
}
