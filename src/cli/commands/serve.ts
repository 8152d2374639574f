import type { Command } from 'commander';
import type { ServeOptions } from '../actions/serve.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the agents HTTP API v1 (recall, records, conflicts, feedback, notes; /openapi.json, /docs) and MCP at /mcp, bearer token per tenant from NOCTURNE_API_TOKENS; with NOCTURNE_OPERATOR_TOKENS, the note inspector at /inspector',
    )
    .option('--port <n>', 'port to listen on (default NOCTURNE_API_PORT, 8787)')
    .option('--host <address>', 'address to bind (default NOCTURNE_API_HOST, 127.0.0.1)')
    .addHelpText(
      'after',
      `\nRuns until interrupted (Ctrl-C / SIGTERM).\n\nExit codes:\n  0  stopped on a signal\n  1  the server or the store failed\n  2  bad usage or configuration`,
    )
    .action(async (opts: ServeOptions) => (await import('../actions/serve.ts')).serveCommand(opts));
}
