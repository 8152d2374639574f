import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertSafeBinding } from '../../src/api/server.ts';
import { envSchema, parseConfig } from '../../src/config.ts';

// No Docker engine runs on the development machines, so the compose file is checked by
// reading it: services, published ports, and the worker's environment against the config schema.

interface Service {
  image?: string;
  build?: unknown;
  ports?: string[];
  environment?: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  restart?: string;
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

/** Resolves `${NAME:-default}` the way compose does when NAME is unset. */
function withDefaults(value: string): string {
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

function environmentOf(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service(name).environment ?? {}).map(([k, v]) => [k, withDefaults(String(v))]),
  );
}

function service(name: string): Service {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
}

describe('docker-compose.yml', () => {
  it('has the production-like services', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'embeddings',
        'postgres',
        'seaweedfs',
        'temporal',
        'temporal-namespace',
        'temporal-schema',
        'temporal-ui',
        'worker',
        'api',
        'schedule-apply',
      ].sort(),
    );
    expect(service('postgres').image).toMatch(/^pgvector\/pgvector:/);
    expect(service('temporal').image).toMatch(/^temporalio\/server:1\.32\./);
    expect(service('temporal-schema').image).toMatch(/^temporalio\/admin-tools:/);
    expect(service('seaweedfs').image).toMatch(/^chrislusf\/seaweedfs:/);
    expect(service('seaweedfs').command?.[0]).toBe('mini');
    expect(service('worker').build).toBeDefined();
  });

  it('pins every image to a version and binds every published port to loopback', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.image) expect(s.image, name).toMatch(/:(?!latest$)[^:/]*\d[^:/]*$/);
      for (const port of s.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
  });

  it.each(['worker', 'api', 'schedule-apply'])(
    "gives the %s an environment that Nocturne's config schema accepts",
    (name) => {
      const env = environmentOf(name);
      const known = Object.keys(envSchema.shape);
      expect(Object.keys(env).filter((k) => !known.includes(k))).toEqual([]);
      const config = parseConfig(env);
      expect(config.database.kind).toBe('postgres');
      expect(config.archive.uri).toMatch(/^s3:\/\//);
      expect(config.embedding.dimension).toBe(1024);
    },
  );

  it('opens the API on the compose network by the explicit plain-HTTP opt-in only', () => {
    const api = parseConfig(environmentOf('api')).api;
    expect(api.host).toBe('0.0.0.0');
    expect(() => assertSafeBinding(api.host, api)).not.toThrow();
    expect(() => assertSafeBinding(api.host, { ...api, allowPlaintext: false })).toThrow(/plain HTTP/);
  });

  it('runs the API and applies the nightly Schedule from the same image as the worker', () => {
    expect(service('api').build).toEqual(service('worker').build);
    expect(service('api').command).toEqual(['node', 'bin/nocturne.mjs', 'serve']);
    expect(service('api').ports).toEqual(['127.0.0.1:8787:8787']);
    expect(environmentOf('api')['NOCTURNE_API_PORT']).toBe('8787');
    expect(service('schedule-apply').command).toEqual(['node', 'bin/nocturne.mjs', 'schedule', 'apply']);
    expect(service('schedule-apply').restart).toBe('no');
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^FROM node:22-/m);
  });

  it('checks health only with programs the image has: no CLI in temporalio/server, node in ours', () => {
    for (const [name, s] of Object.entries(services)) {
      const test = (s.healthcheck?.test ?? []).join(' ');
      if (s.image?.startsWith('temporalio/server')) expect(test, name).not.toMatch(/\b(temporal|tctl)\b/);
      if (s.build) expect(s.healthcheck === undefined || test.includes('node'), name).toBe(true);
    }
    // Readiness of the server is checked from the admin-tools image, which has the CLI.
    expect(readFileSync('deploy/temporal-namespace.sh', 'utf8')).toMatch(/until temporal operator cluster health/);
  });

  it('waits only on conditions a service can reach: healthy needs a health check, completed needs a one-shot', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        if (condition === 'service_healthy') expect(service(dep).healthcheck, `${name} → ${dep}`).toBeDefined();
        if (condition === 'service_completed_successfully') expect(service(dep).restart, `${name} → ${dep}`).toBe('no');
      }
    }
  });

  it("creates the archive's bucket and keeps embedding batches within the server's limit", () => {
    const bucket = new URL(environmentOf('worker')['NOCTURNE_ARCHIVE_URI'] ?? '').hostname;
    expect(service('seaweedfs').command).toContain(`-bucket=${bucket}`);
    const command = service('embeddings').command ?? [];
    const serverLimit = Number(command[command.indexOf('--max-client-batch-size') + 1]);
    const batch = parseConfig(environmentOf('worker')).embedding.batchSize ?? 64;
    expect(batch).toBeLessThanOrEqual(serverLimit);
  });

  it('points the worker at services and container ports that exist', () => {
    const env = service('worker').environment ?? {};
    const targets: Array<[string, string]> = [
      [String(env['TEMPORAL_ADDRESS']), 'temporal:7233'],
      [withDefaults(String(env['DATABASE_URL'])), '@postgres:5432/'],
      [String(env['S3_ENDPOINT']), '//seaweedfs:8333'],
      [String(env['NOCTURNE_EMBEDDING_URL']), '//embeddings:80/'],
    ];
    for (const [value, expected] of targets) expect(value).toContain(expected);
    expect(service('embeddings').command).toContain('BAAI/bge-m3');
  });

  it('gives the worker a runtime login without superuser rights and a separate owner login for migrations', () => {
    const env = service('worker').environment ?? {};
    const runtime = new URL(withDefaults(String(env['DATABASE_URL']))).username;
    const owner = new URL(withDefaults(String(env['NOCTURNE_MIGRATION_DATABASE_URL']))).username;
    expect([runtime, owner]).toEqual(['nocturne', 'nocturne_owner']);
    expect(service('postgres').volumes?.join(' ')).toContain('deploy/postgres-logins.sh:/docker-entrypoint-initdb.d/');
    const script = readFileSync('deploy/postgres-logins.sh', 'utf8');
    expect(script).toContain(`CREATE ROLE ${runtime} LOGIN NOSUPERUSER NOBYPASSRLS`);
    expect(script).toContain(`CREATE ROLE ${owner} LOGIN NOSUPERUSER NOBYPASSRLS`);
    expect(script).toContain(`CREATE DATABASE nocturne OWNER ${owner}`);
  });

  it('configures SeaweedFS with credentials (no anonymous access) matching the worker', () => {
    const s3 = JSON.parse(readFileSync('deploy/seaweedfs-s3.json', 'utf8')) as {
      identities: Array<{ name: string; credentials?: Array<{ accessKey: string; secretKey: string }> }>;
    };
    expect(s3.identities.every((i) => (i.credentials ?? []).length > 0)).toBe(true);
    const env = service('worker').environment ?? {};
    const cred = s3.identities[0]?.credentials?.[0];
    expect(cred?.accessKey).toBe(withDefaults(String(env['S3_ACCESS_KEY_ID'])));
    expect(cred?.secretKey).toBe(withDefaults(String(env['S3_SECRET_ACCESS_KEY'])));
  });

  it('lets operators start workflows and send signals from the UI', () => {
    const ui = service('temporal-ui').environment ?? {};
    expect(ui['TEMPORAL_DISABLE_WRITE_ACTIONS']).toBe('false');
    expect(ui['TEMPORAL_START_WORKFLOW_DISABLED']).toBe('false');
  });

  it('ships every script its one-shot services run', () => {
    for (const name of ['temporal-schema', 'temporal-namespace']) {
      const script = service(name).entrypoint?.at(-1) ?? '';
      expect(existsSync(script.replace(/^\/deploy\//, 'deploy/')), script).toBe(true);
    }
    const namespaceScript = readFileSync('deploy/temporal-namespace.sh', 'utf8');
    for (const attr of ['NocturneTenant', 'NocturneTrigger', 'NocturneStatus']) expect(namespaceScript).toContain(attr);
  });
});
