import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.ts';
import { createEngine } from '../../../src/worker.ts';

describe('createEngine (composition root)', () => {
  it.each([
    [{}, 'deterministic'],
    [
      { NOCTURNE_LLM_PROVIDER: 'none', NOCTURNE_LLM_URL: 'http://127.0.0.1:1/v1', NOCTURNE_LLM_MODEL: 'm' },
      'deterministic',
    ],
    [
      { NOCTURNE_LLM_PROVIDER: 'openai', NOCTURNE_LLM_URL: 'http://127.0.0.1:8000/v1', NOCTURNE_LLM_MODEL: 'qwen2.5' },
      'llm:openai:qwen2.5',
    ],
    [
      { NOCTURNE_LLM_PROVIDER: 'ollama', NOCTURNE_LLM_URL: 'http://127.0.0.1:11434', NOCTURNE_LLM_MODEL: 'llama3.2' },
      'llm:ollama:llama3.2',
    ],
  ])('%o → %s', (env, name) => {
    expect(createEngine(parseConfig(env)).name).toBe(name);
  });
});
