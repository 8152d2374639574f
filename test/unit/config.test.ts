import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.ts';

describe('parseConfig', () => {
  it('defaults to the embedded stack: PGlite, file:// archive, local Temporal', () => {
    const c = parseConfig({});
    expect(c.database).toEqual({ kind: 'pglite', dataDir: 'var/pglite' });
    expect(c.archive.uri).toBe('file://var/archive');
    expect(c.temporal).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'nocturne' });
    expect(c.llm).toEqual({ provider: 'none' });
    expect(c.strictServices).toBe(false);
  });

  it('reads a server database, an S3 archive and the embedding dimension', () => {
    const c = parseConfig({
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
      NOCTURNE_ARCHIVE_URI: 's3://bucket/prefix',
      S3_ENDPOINT: 'http://127.0.0.1:8333',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
      NOCTURNE_EMBEDDING_DIM: '1024',
    });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://u:p@127.0.0.1:5432/db' });
    expect(c.archive.s3).toMatchObject({ endpoint: 'http://127.0.0.1:8333', accessKeyId: 'k' });
    expect(c.embedding.dimension).toBe(1024);
  });

  it('reads one embedding server URL or several separated by commas, and refuses a bad one', () => {
    const two = 'http://127.0.0.1:8089/v1, http://127.0.0.1:8090/v1';
    expect(parseConfig({ NOCTURNE_EMBEDDING_URL: two }).embedding.url).toBe(two);
    expect(() => parseConfig({ NOCTURNE_EMBEDDING_URL: 'http://127.0.0.1:8089/v1,ftp://x' })).toThrow(
      /NOCTURNE_EMBEDDING_URL.*several separated by commas/,
    );
  });

  it('reads the owner login that migrates beside the runtime login', () => {
    const c = parseConfig({
      DATABASE_URL: 'postgres://app:p@127.0.0.1:5432/db',
      NOCTURNE_MIGRATION_DATABASE_URL: 'postgres://owner:q@127.0.0.1:5432/db',
    });
    expect(c.database).toEqual({
      kind: 'postgres',
      url: 'postgres://app:p@127.0.0.1:5432/db',
      migrationUrl: 'postgres://owner:q@127.0.0.1:5432/db',
    });
  });

  it('requires the audit key in production, and reads it elsewhere when given', () => {
    expect(() => parseConfig({ NOCTURNE_ENV: 'production' })).toThrow(
      /NOCTURNE_AUDIT_KEY: required when NOCTURNE_ENV=production/,
    );
    expect(parseConfig({}).audit).toEqual({});
    const key = 'a-secret-of-at-least-32-characters-long';
    expect(parseConfig({ NOCTURNE_ENV: 'production', NOCTURNE_AUDIT_KEY: key }).audit).toEqual({ key });
    expect(() => parseConfig({ NOCTURNE_AUDIT_KEY: 'short-key' })).toThrow(
      /NOCTURNE_AUDIT_KEY: at least 32 characters/,
    );
    try {
      parseConfig({ NOCTURNE_AUDIT_KEY: 'short-key' });
    } catch (error) {
      expect((error as Error).message).not.toContain('short-key');
    }
  });

  it.each([
    [{ NOCTURNE_MIGRATION_DATABASE_URL: 'postgres://o:q@h:5432/db' }, /DATABASE_URL: required when/],
    [
      { DATABASE_URL: 'postgres://u:p@h:5432/db', NOCTURNE_MIGRATION_DATABASE_URL: 'x' },
      /NOCTURNE_MIGRATION_DATABASE_URL/,
    ],
    [{ TEMPORAL_ADDRESS: 'localhost' }, /^invalid configuration: TEMPORAL_ADDRESS: expected host:port/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL: expected postgres:\/\//],
    [{ NOCTURNE_ARCHIVE_URI: 'ftp://x' }, /NOCTURNE_ARCHIVE_URI: expected s3:\/\/bucket\/prefix or file:\/\/dir/],
    [{ NOCTURNE_EMBEDDING_DIM: 'big' }, /NOCTURNE_EMBEDDING_DIM/],
    [{ NOCTURNE_ARCHIVE_URI: 's3://bucket/p' }, /S3_ACCESS_KEY_ID: required/],
    [{ NOCTURNE_LLM_PROVIDER: 'openai' }, /NOCTURNE_LLM_URL and NOCTURNE_LLM_MODEL: required/],
    [{ CI: 'maybe' }, /CI:/],
    [{ NOCTURNE_SCHEDULE_CRON: 'nightly' }, /NOCTURNE_SCHEDULE_CRON: expected a 5-field cron/],
    [{ NOCTURNE_SCHEDULE_TIMEZONE: 'Berlin time' }, /NOCTURNE_SCHEDULE_TIMEZONE: expected an IANA time zone/],
    [{ NOCTURNE_CONFLICT_THRESHOLD: '0' }, /NOCTURNE_CONFLICT_THRESHOLD/],
    [{ NOCTURNE_CONFLICT_COOLDOWN_SECONDS: '-1' }, /NOCTURNE_CONFLICT_COOLDOWN_SECONDS/],
    [{ NOCTURNE_NIGHTLY_CONCURRENCY: 'many' }, /NOCTURNE_NIGHTLY_CONCURRENCY/],
  ])('rejects %o with one line naming the variable', (env, message) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(message);
    try {
      parseConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('reads booleans literally: "false" is false', () => {
    expect(parseConfig({ CI: 'false' }).strictServices).toBe(false);
    expect(parseConfig({ CI: 'true' }).strictServices).toBe(true);
    expect(parseConfig({ CI: 'true', NOCTURNE_STRICT_SERVICES: 'false' }).strictServices).toBe(false);
  });

  it('reads the trigger settings: nightly cron and concurrency, conflict threshold and cooldown', () => {
    expect(parseConfig({}).triggers).toEqual({
      scheduleCron: '0 2 * * *',
      scheduleTimeZone: 'UTC',
      nightlyConcurrency: 4,
      conflictThreshold: 5,
      conflictCooldownSeconds: 3600,
    });
    const c = parseConfig({
      NOCTURNE_SCHEDULE_CRON: '30 3 * * MON-FRI',
      NOCTURNE_SCHEDULE_TIMEZONE: 'Europe/Berlin',
      NOCTURNE_NIGHTLY_CONCURRENCY: '8',
      NOCTURNE_CONFLICT_THRESHOLD: '3',
      NOCTURNE_CONFLICT_COOLDOWN_SECONDS: '0',
    });
    expect(c.triggers).toEqual({
      scheduleCron: '30 3 * * MON-FRI',
      scheduleTimeZone: 'Europe/Berlin',
      nightlyConcurrency: 8,
      conflictThreshold: 3,
      conflictCooldownSeconds: 0,
    });
  });

  it('reads the recall API: loopback by default, tokens kept only as sha256 digests', () => {
    expect(parseConfig({}).api).toEqual({
      host: '127.0.0.1',
      port: 8787,
      tokens: [],
      operators: [],
      limits: { ratePerSecond: 20, burst: 40, concurrency: 8, deadlineMs: 15_000 },
      allowPlaintext: false,
    });
    const secret = 'a-long-enough-bearer-token-0001';
    const digest = createHash('sha256').update('other-tenant-token-000000001').digest('hex');
    const c = parseConfig({
      NOCTURNE_API_PORT: '9000',
      NOCTURNE_API_TOKENS: `acme:${secret}, globex:sha256=${digest.toUpperCase()}`,
    });
    expect(c.api.port).toBe(9000);
    expect(c.api.tokens).toEqual([
      { tenantId: 'acme', sha256: createHash('sha256').update(secret).digest('hex') },
      { tenantId: 'globex', sha256: digest },
    ]);
    expect(JSON.stringify(c)).not.toContain(secret);
  });

  it.each([
    ['acme', /entry 1: expected tenant:token/],
    ['acme:short', /entry 1: the token must be at least 24 characters/],
    ['acme:a-long-enough-bearer-token-0001,:a-long-enough-bearer-token-0002', /entry 2: expected tenant:token/],
    ['acme:sha256=abc', /entry 1: sha256= must be followed by 64 hex digits/],
  ])('rejects NOCTURNE_API_TOKENS=%j without echoing the secret', (value, message) => {
    expect(() => parseConfig({ NOCTURNE_API_TOKENS: value })).toThrow(message);
    try {
      parseConfig({ NOCTURNE_API_TOKENS: value });
    } catch (error) {
      expect((error as Error).message).not.toMatch(/short|bearer-token|abc/);
    }
  });

  it('reads operator tokens apart from tenant tokens: the name is the audit actor, the secret a digest', () => {
    const secret = 'an-operator-token-long-enough-01';
    const c = parseConfig({ NOCTURNE_OPERATOR_TOKENS: `ada@ops:${secret}`, NOCTURNE_API_TOKENS: `acme:${secret}x` });
    expect(c.api.operators).toEqual([
      { operator: 'ada@ops', sha256: createHash('sha256').update(secret).digest('hex') },
    ]);
    expect(c.api.tokens.map((t) => t.tenantId)).toEqual(['acme']);
    expect(JSON.stringify(c)).not.toContain(secret);
    expect(() => parseConfig({ NOCTURNE_OPERATOR_TOKENS: 'ada:short' })).toThrow(
      /NOCTURNE_OPERATOR_TOKENS: entry 1: the token must be at least 24/,
    );
    expect(() => parseConfig({ NOCTURNE_OPERATOR_TOKENS: `:${secret}` })).toThrow(/expected operator:token/);
  });

  it('treats empty variables as unset', () => {
    expect(parseConfig({ DATABASE_URL: '' }).database.kind).toBe('pglite');
  });
});
