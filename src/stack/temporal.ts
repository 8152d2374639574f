import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../contracts/search-attributes.ts';
import { STACK } from './endpoints.ts';
import { VAR, VENV_BIN, toolPath } from './paths.ts';
import { spawnDetached } from './process.ts';
import type { Service } from './service.ts';

/** The search attributes the workflows set, registered at server start (the demo's server reads them here too). */
export { SEARCH_ATTRIBUTES };

const DATA_DIR = path.join(VAR, 'temporal');
const address = `${STACK.host}:${STACK.temporal.port}`;

export const temporal: Service = {
  name: 'temporal',
  endpoint: `${address} (UI http://${STACK.host}:${STACK.temporal.uiPort})`,
  ports: [STACK.temporal.port, STACK.temporal.uiPort, STACK.temporal.httpPort, STACK.temporal.metricsPort],
  marker: path.join(VENV_BIN, 'temporal'),

  async start() {
    const bin = toolPath(VENV_BIN, 'temporal');
    mkdirSync(DATA_DIR, { recursive: true });
    // --search-attribute registers (or re-confirms) the attributes on every start, also on an existing db file.
    const args = [
      'server',
      'start-dev',
      '--ip',
      STACK.host,
      '--port',
      String(STACK.temporal.port),
      '--ui-port',
      String(STACK.temporal.uiPort),
      '--http-port',
      String(STACK.temporal.httpPort),
      '--metrics-port',
      String(STACK.temporal.metricsPort),
      '--db-filename',
      path.join(DATA_DIR, 'temporal.db'),
      '--namespace',
      STACK.temporal.namespace,
      '--log-level',
      'warn',
      '--ui-disable-news-fetch',
      ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([k, v]) => ['--search-attribute', `${k}=${v}`]),
    ];
    spawnDetached('temporal', bin, args);
  },

  async health() {
    const connection = await Connection.connect({ address, connectTimeout: 2_000 });
    try {
      await connection.workflowService.describeNamespace({ namespace: STACK.temporal.namespace });
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: STACK.temporal.namespace,
      });
      const missing = Object.keys(SEARCH_ATTRIBUTES).filter((k) => !(customAttributes && k in customAttributes));
      if (missing.length) throw new Error(`search attributes not registered: ${missing.join(', ')}`);
    } finally {
      await connection.close();
    }
  },
};
