/** The note engine that writes with a model; it lives in `llm/` (batch view, prompt, answer, changes). */
export { createLlmEngine, type LlmEngineOptions } from './llm/engine.ts';
export { SYSTEM_PROMPT } from './llm/prompt.ts';
export { ENGINE_REFUSAL_RULES } from './llm/changes.ts';
