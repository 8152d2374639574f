import { Ollama } from '@llamaindex/ollama';
import type { Completion, CompletionRequest, Llm } from './llm.ts';
import { completeStructured, usageOr, type ChatFn } from './structured.ts';

export interface OllamaLlmOptions {
  /** The Ollama server, e.g. `http://127.0.0.1:11434` (a trailing `/v1` or `/api` is dropped). */
  url: string;
  model: string;
  /** Context window. @default 8192 */
  numCtx?: number;
}

/** The LLM port over LlamaIndex's Ollama provider (native `/api/chat` with a JSON-schema `format`). */
export function createOllamaLlm(options: OllamaLlmOptions): Llm {
  const host = options.url.replace(/\/+$/, '').replace(/\/(v1|api)$/, '');
  const chat: ChatFn = async (messages, { schema, maxTokens }) => {
    // The completion cap is a model option in Ollama, so each call gets its own light wrapper.
    const llm = new Ollama({
      model: options.model,
      config: { host },
      options: { temperature: 0, top_p: 1, num_ctx: options.numCtx ?? 8192, num_predict: maxTokens },
    });
    const response = await llm.chat({ messages, responseFormat: schema });
    const text = typeof response.message.content === 'string' ? response.message.content : '';
    const raw = response.raw as { prompt_eval_count?: number; eval_count?: number } | null;
    return { text, usage: usageOr({ prompt: raw?.prompt_eval_count, completion: raw?.eval_count }, messages, text) };
  };
  return {
    name: `ollama:${options.model}`,
    complete<T>(request: CompletionRequest<T>): Promise<Completion<T>> {
      return completeStructured(chat, request);
    },
  };
}
