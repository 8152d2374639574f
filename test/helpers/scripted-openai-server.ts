import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted reply: the assistant's content and the usage the server reports (or an HTTP error). */
export type ScriptedReply =
  { content: string; promptTokens?: number; completionTokens?: number } | { status: number; body?: unknown };

export interface RecordedRequest {
  path: string;
  body: {
    model?: string;
    messages?: Array<{ role: string; content: string }>;
    response_format?: unknown;
    format?: unknown;
    max_tokens?: number;
    options?: Record<string, unknown>;
  };
}

export interface ScriptedServer {
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  /** The same server for Ollama's native API (`/api/chat`). */
  ollamaUrl: string;
  requests: RecordedRequest[];
  /** Queue replies, answered in order; an empty queue answers 500. */
  script(...replies: ScriptedReply[]): void;
  /** Replies left unanswered. */
  pending(): number;
  /** Drops the unanswered replies; returns how many there were. */
  reset(): number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (random port) speaking just enough of the OpenAI chat
 * completions API and Ollama's /api/chat for the LLM port's real client code to run against.
 */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({ path, body: body as RecordedRequest['body'] });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (path !== '/v1/chat/completions' && path !== '/api/chat')
        return send(404, { error: { message: `no route ${path}` } });
      const reply = queue.shift();
      if (!reply) return send(500, { error: { message: 'script exhausted' } });
      if ('status' in reply) return send(reply.status, reply.body ?? { error: { message: 'scripted failure' } });
      const model = (body as { model?: string }).model ?? 'scripted';
      if (path === '/api/chat') {
        return send(200, {
          model,
          created_at: new Date().toISOString(),
          message: { role: 'assistant', content: reply.content },
          done: true,
          done_reason: 'stop',
          ...(reply.promptTokens !== undefined ? { prompt_eval_count: reply.promptTokens } : {}),
          ...(reply.completionTokens !== undefined ? { eval_count: reply.completionTokens } : {}),
        });
      }
      const usage =
        reply.promptTokens !== undefined && reply.completionTokens !== undefined
          ? {
              usage: {
                prompt_tokens: reply.promptTokens,
                completion_tokens: reply.completionTokens,
                total_tokens: reply.promptTokens + reply.completionTokens,
              },
            }
          : {};
      return send(200, {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
        ...usage,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    ollamaUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => queue.push(...replies),
    pending: () => queue.length,
    reset: () => queue.splice(0).length,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return { unparsed: text };
  }
}
