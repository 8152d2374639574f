import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { ChatMessage, FEEDBACK_VERDICTS } from './contract.ts';
import { ApiFailure } from './http.ts';
import { MAX_RECORDS_BODY_BYTES } from './routes/v1.ts';
import type { ApiService, Caller } from './service.ts';

type ToolAnswer = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

/**
 * The MCP tools of one request, bound to the tenant its bearer token grants. The arguments go
 * through the same service (and the same validation) as the HTTP routes; a refused call is a
 * tool error with the route's status and one-line reason, which the model can read and fix.
 */
function toolsServer(
  service: ApiService,
  caller: Caller,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): McpServer {
  const { tenantId } = caller;
  const server = new McpServer({ name: 'nocturne', version: '1.0.0' });
  const answer = async (tool: string, work: () => Promise<unknown>): Promise<ToolAnswer> => {
    try {
      return { content: [{ type: 'text', text: JSON.stringify(await work()) }] };
    } catch (error) {
      if (error instanceof ApiFailure)
        return { isError: true, content: [{ type: 'text', text: `${error.status} ${error.code}: ${error.reason}` }] };
      log(`MCP: ${tool} for tenant ${tenantId} failed: ${error instanceof Error ? error.message : String(error)}`);
      return { isError: true, content: [{ type: 'text', text: `500 internal: ${tool} failed; see the server log` }] };
    }
  };
  server.registerTool(
    'recall',
    {
      description:
        'Recall the memory notes (and raw records) most relevant to a query, and the standing preferences of the user the token is bound to. Pass taskId to log what the task used.',
      inputSchema: {
        query: z.string(),
        k: z.number().int().optional(),
        include: z.array(z.enum(['notes', 'records'])).optional(),
        tokenBudget: z.number().int().optional(),
        minRelevance: z.number().min(0).max(1).optional(),
        askedBy: z.string().optional(),
        taskId: z.string().optional(),
      },
    },
    (args) => answer('recall', () => service.recall({ ...caller, audit: false }, args, signal)),
  );
  server.registerTool(
    'append_records',
    {
      description:
        'Append to the archive either raw records ({records}) or a conversation ({sessionId, agentId, userId?, messages}).',
      inputSchema: {
        records: z.array(z.record(z.string(), z.unknown())).optional(),
        sessionId: z.string().optional(),
        agentId: z.string().optional(),
        userId: z.string().optional(),
        taskId: z.string().optional(),
        messages: z.array(ChatMessage).optional(),
      },
    },
    (args) => answer('append_records', () => service.appendRecords(tenantId, definedOnly(args))),
  );
  server.registerTool(
    'report_conflict',
    {
      description: 'Report notes that what just happened contradicts; enough reports start a focused consolidation.',
      inputSchema: { noteIds: z.array(z.string()), reason: z.string().optional() },
    },
    (args) => answer('report_conflict', () => service.reportConflict(tenantId, args)),
  );
  server.registerTool(
    'get_note',
    {
      description: 'Read a note: its current version, or with history=true every version.',
      inputSchema: { noteId: z.string(), history: z.boolean().optional() },
    },
    (args) =>
      answer('get_note', () =>
        args.history ? service.noteHistory(caller, args.noteId) : service.getNote(caller, args.noteId),
      ),
  );
  server.registerTool(
    'note_feedback',
    {
      description: 'Say that a recalled note helped or was wrong; the next consolidation run acts on it.',
      inputSchema: { noteId: z.string(), verdict: z.enum(FEEDBACK_VERDICTS), taskId: z.string().optional() },
    },
    (args) => answer('note_feedback', () => service.feedback(tenantId, args)),
  );
  return server;
}

/** Drops absent optional arguments, so the body matches the strict request shapes of the routes. */
function definedOnly(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/**
 * Answers one MCP Streamable HTTP request, statelessly: a server and a transport per request (no
 * session to keep or to hijack), JSON answers instead of a stream.
 */
export async function handleMcpRequest(
  request: Request,
  p: { service: ApiService; caller: Caller; log: (line: string) => void; signal?: AbortSignal },
): Promise<Response> {
  const server = toolsServer(p.service, p.caller, p.log, p.signal);
  const transport = new WebStandardStreamableHTTPServerTransport({
    enableJsonResponse: true,
    maxRequestBodySize: MAX_RECORDS_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
