import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, Service> };
const services = compose.services;

/** Resolves `${NAME:-default}` the way compose does when NAME is unset. */
function withDefaults(value: string): string {
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
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

  it("gives the worker an environment that Nocturne's config schema accepts", () => {
    const env = Object.fromEntries(
      Object.entries(service('worker').environment ?? {}).map(([k, v]) => [k, withDefaults(String(v))]),
    );
    const known = Object.keys(envSchema.shape);
    expect(Object.keys(env).filter((k) => !known.includes(k))).toEqual([]);
    const config = parseConfig(env);
    expect(config.database.kind).toBe('postgres');
    expect(config.archive.uri).toMatch(/^s3:\/\//);
    expect(config.embedding.dimension).toBe(1024);
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
