import { createHash } from 'node:crypto';
import { z } from 'zod';
import { formatIssues } from './contracts/format-issues.ts';

/**
 * The whole runtime configuration, read from the environment once at start-up.
 * Only composition roots (the CLI entry and `src/worker.ts`) call `loadConfig`;
 * everything else receives the parsed value.
 */

/** Booleans from the environment: explicit words only (`z.coerce.boolean()` reads "false" as true). */
const envBoolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const hostPort = z.string().regex(/^[^\s:/]+:\d{1,5}$/, 'expected host:port, e.g. 127.0.0.1:7233');

const archiveUri = z
  .string()
  .refine((v) => /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v) || v.startsWith('file://'), {
    message: 'expected s3://bucket/prefix or file://dir',
  });

const databaseUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), { message: 'expected postgres://user:pass@host:port/db' });

/** Whether the runtime's time-zone database knows the name (the Temporal server reads the same IANA names). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const httpUrl = z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' });
/** One http(s) URL or several separated by commas (kept as written; the embedder splits it). */
const httpUrls = z
  .string()
  .trim()
  .refine(
    (value) => value.split(',').every((part) => httpUrl.safeParse(part.trim()).success),
    'expected an http(s) URL, or several separated by commas',
  );

/** Environment variable name → schema. Keys are the variable names so errors can name them. */
export const envSchema = z.object({
  TEMPORAL_ADDRESS: hostPort.default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  NOCTURNE_TASK_QUEUE: z.string().min(1).default('nocturne'),
  /**
   * The runtime login (NOSUPERUSER NOBYPASSRLS, acting as the app role only: docs/SECURITY.md).
   * Absent → the embedded PGlite store under NOCTURNE_DATA_DIR.
   */
  DATABASE_URL: databaseUrl.optional(),
  /**
   * The owner login that applies migrations before the runtime login connects. Absent →
   * migrations run through DATABASE_URL (only a login that owns the schema can apply them).
   */
  NOCTURNE_MIGRATION_DATABASE_URL: databaseUrl.optional(),
  NOCTURNE_DATA_DIR: z.string().min(1).default('var'),
  /** `production` refuses to start without the secrets a deployment must hold (NOCTURNE_AUDIT_KEY). */
  NOCTURNE_ENV: z.enum(['development', 'production']).default('development'),
  /**
   * The audit chain's HMAC key, kept outside the database (docs/SECURITY.md). Absent outside
   * production → legacy unkeyed entries. Messages never echo the value.
   */
  NOCTURNE_AUDIT_KEY: z.string().min(32, 'at least 32 characters').optional(),
  NOCTURNE_ARCHIVE_URI: archiveUri.optional(),
  /** Inflated archive objects a worker keeps for its replay batches, in MiB; 0 turns it off. */
  NOCTURNE_ARCHIVE_CACHE_MB: z.coerce.number().int().min(0).default(128),
  S3_ENDPOINT: httpUrl.optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  NOCTURNE_PRODUCER: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,47}$/, 'lowercase letters, digits, _ or -, at most 48')
    .optional(),
  NOCTURNE_EMBEDDING_PROVIDER: z.enum(['openai', 'ollama', 'lexical']).default('openai'),
  /** One embedding server, or several separated by commas (batches are spread over them). */
  NOCTURNE_EMBEDDING_URL: httpUrls.default('http://127.0.0.1:8089/v1'),
  NOCTURNE_EMBEDDING_MODEL: z.string().min(1).default('multilingual-e5-small'),
  NOCTURNE_EMBEDDING_DIM: z.coerce.number().int().min(2).max(16000).default(384),
  NOCTURNE_EMBEDDING_SIMILARITY_FLOOR: z.coerce.number().min(0).max(0.99).optional(),
  /** Texts per embedding request; a server's 413 halves it for that batch anyway. */
  NOCTURNE_EMBEDDING_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(64),
  /** Characters of one text sent to the model at most (about its 512-token window). */
  NOCTURNE_EMBEDDING_MAX_INPUT_CHARS: z.coerce.number().int().min(1).default(1800),
  /** Characters of one embedding request at most. */
  NOCTURNE_EMBEDDING_MAX_BATCH_CHARS: z.coerce.number().int().min(1).default(8000),
  NOCTURNE_LLM_PROVIDER: z.enum(['none', 'openai', 'ollama']).default('none'),
  NOCTURNE_LLM_URL: httpUrl.optional(),
  NOCTURNE_LLM_MODEL: z.string().min(1).optional(),
  NOCTURNE_LLM_API_KEY: z.string().min(1).optional(),
  NOCTURNE_STRICT_SERVICES: envBoolean.optional(),
  /** Cron of the nightly Schedule: 5 fields (names such as MON-FRI allowed) or a shorthand such as @daily. */
  NOCTURNE_SCHEDULE_CRON: z
    .string()
    .trim()
    .regex(
      /^(@[a-z]+|\S+( \S+){4})$/i,
      'expected a 5-field cron expression, e.g. "0 2 * * *", or a shorthand such as @daily',
    )
    .default('0 2 * * *'),
  /** The time zone the nightly cron is read in (IANA name). */
  NOCTURNE_SCHEDULE_TIMEZONE: z
    .string()
    .refine(isTimeZone, 'expected an IANA time zone such as UTC or Europe/Berlin')
    .default('UTC'),
  NOCTURNE_CONFLICT_THRESHOLD: z.coerce.number().int().min(1).max(10_000).default(5),
  NOCTURNE_CONFLICT_COOLDOWN_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(3600),
  NOCTURNE_NIGHTLY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  CI: envBoolean.optional(),
  /** The recall HTTP API (`nocturne serve`). Loopback unless an operator opens it on purpose. */
  NOCTURNE_API_HOST: z.string().min(1).default('127.0.0.1'),
  NOCTURNE_API_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  /**
   * Bearer tokens per tenant: `tenant:token,tenant:sha256=<hex>,…`. A hashed entry keeps the
   * secret out of the environment. Messages never echo the value (it holds secrets).
   */
  NOCTURNE_API_TOKENS: z.string().optional(),
  /**
   * Audit tokens, the same syntax as NOCTURNE_API_TOKENS: everything an agent token may do, plus
   * point-in-time recall (`asOf`). Messages never echo the value.
   */
  NOCTURNE_AUDIT_TOKENS: z.string().optional(),
  /** Per-token token bucket: sustained requests per second and the burst above it. */
  NOCTURNE_API_RATE_PER_SECOND: z.coerce.number().min(0.01).max(100_000).default(20),
  NOCTURNE_API_RATE_BURST: z.coerce.number().int().min(1).max(100_000).default(40),
  /** Requests one token may have in flight at once. */
  NOCTURNE_API_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(8),
  /** A request still running after this many milliseconds is answered 504. */
  NOCTURNE_API_DEADLINE_MS: z.coerce.number().int().min(10).max(600_000).default(15_000),
  /** PEM certificate and key files: `nocturne serve` speaks HTTPS with them. */
  NOCTURNE_API_TLS_CERT: z.string().min(1).optional(),
  NOCTURNE_API_TLS_KEY: z.string().min(1).optional(),
  /** Plain HTTP on a non-loopback host (e.g. behind a private network or a TLS proxy): an explicit choice. */
  NOCTURNE_API_ALLOW_PLAINTEXT: envBoolean.optional(),
  /**
   * Operators of the note inspector (`/inspector`): `name:token,name:sha256=<hex>,…`. The name is
   * what the audit records as the actor of a rollback. A role apart from the tenants' tokens.
   */
  NOCTURNE_OPERATOR_TOKENS: z.string().optional(),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  temporal: { address: string; namespace: string; taskQueue: string };
  /** `kind: 'pglite'` is the embedded default, used when DATABASE_URL is absent. */
  database: { kind: 'postgres'; url: string; migrationUrl?: string } | { kind: 'pglite'; dataDir: string };
  /** The audit chain: its HMAC key, when configured. */
  audit: { key?: string };
  archive: {
    uri: string;
    producer: string;
    /** Bytes of inflated objects a worker keeps for replay (0: none). */
    cacheBytes: number;
    s3?: { endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string };
  };
  embedding: {
    provider: 'openai' | 'ollama' | 'lexical';
    /** One server URL, or several separated by commas. */
    url: string;
    model: string;
    dimension: number;
    similarityFloor: number;
    /** Texts per request. @default 64 */
    batchSize?: number;
    /** Characters of one text sent at most; longer ones are cut. @default 1800 */
    maxInputChars?: number;
    /** Characters of one request at most. @default 8000 */
    maxBatchChars?: number;
  };
  llm: { provider: 'none' } | { provider: 'openai' | 'ollama'; url: string; model: string; apiKey?: string };
  /** The nightly Schedule and the conflict monitor (`nocturne schedule apply`, `reportConflict`). */
  triggers: {
    scheduleCron: string;
    /** IANA zone the cron is read in. @default 'UTC' */
    scheduleTimeZone?: string;
    nightlyConcurrency: number;
    conflictThreshold: number;
    conflictCooldownSeconds: number;
  };
  /** The recall HTTP API and the note inspector. Tokens are kept as sha256 digests only. */
  api: {
    host: string;
    port: number;
    tokens: ApiToken[];
    operators: OperatorToken[];
    /** Per-token rate, concurrency and deadline; absent → the defaults of `DEFAULT_API_LIMITS`. */
    limits?: ApiLimits;
    /** HTTPS certificate and key files. */
    tls?: { certFile: string; keyFile: string };
    /** Plain HTTP beyond loopback was chosen explicitly. */
    allowPlaintext?: boolean;
  };
  dataDir: string;
  /** In CI a missing service is a failure, never a skip. */
  strictServices: boolean;
}

export interface ApiToken {
  tenantId: string;
  /** sha256 hex digest of the bearer token. */
  sha256: string;
  /** `audit` may also ask for point-in-time recall (`asOf`). @default 'agent' */
  role?: 'agent' | 'audit';
  /** Set by `tenant/user:token`: the token reads only this user's notes and wider scopes. */
  userId?: string;
}

export interface ApiLimits {
  ratePerSecond: number;
  burst: number;
  concurrency: number;
  deadlineMs: number;
}

export const DEFAULT_API_LIMITS: ApiLimits = { ratePerSecond: 20, burst: 40, concurrency: 8, deadlineMs: 15_000 };

export interface OperatorToken {
  /** Who the audit names when this token starts a rollback. */
  operator: string;
  /** sha256 hex digest of the operator token. */
  sha256: string;
}

const OPERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;
/** A bearer token must be long enough not to be guessed. */
export const MIN_API_TOKEN_LENGTH = 24;

/** `tenant` or `tenant/user`: a token bound to one user of its tenant. */
const API_OWNER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(\/[A-Za-z0-9_.@+-]{1,128})?$/;

/**
 * Parses NOCTURNE_API_TOKENS (`tenant:token`, `tenant:sha256=<hex>`, either with `tenant/user`
 * in front) or, with `role: 'audit'`, NOCTURNE_AUDIT_TOKENS. Errors name the entry by position,
 * never by its content.
 */
export function parseApiTokens(value: string | undefined, role: 'agent' | 'audit' = 'agent'): ApiToken[] {
  const variable = role === 'audit' ? 'NOCTURNE_AUDIT_TOKENS' : 'NOCTURNE_API_TOKENS';
  return parseNamedTokens(value, variable, {
    label: 'tenant',
    valid: 'tenant id (or tenant/user)',
    pattern: API_OWNER,
  }).map(({ name, sha256 }) => {
    const [tenantId = name, userId] = name.split('/');
    return { tenantId, sha256, ...(role === 'audit' ? { role } : {}), ...(userId ? { userId } : {}) };
  });
}

/**
 * One token, one grant: a digest that appears twice (for two tenants, or as agent and audit token)
 * is refused, naming the entries by position and never the token.
 */
export function refuseDuplicateTokens(lists: Array<{ variable: string; tokens: readonly { sha256: string }[] }>): void {
  const seen = new Map<string, string>();
  for (const { variable, tokens } of lists)
    tokens.forEach((t, i) => {
      const here = `${variable} entry ${i + 1}`;
      const first = seen.get(t.sha256);
      if (first)
        throw new ConfigError(
          `invalid configuration: ${first} and ${here} hold the same token: each token may grant one tenant and one role`,
        );
      seen.set(t.sha256, here);
    });
}

/** Parses NOCTURNE_OPERATOR_TOKENS (`operator:token` or `operator:sha256=<hex>`), like the tenant tokens. */
export function parseOperatorTokens(value: string | undefined): OperatorToken[] {
  return parseNamedTokens(value, 'NOCTURNE_OPERATOR_TOKENS', {
    label: 'operator',
    valid: 'operator name',
    pattern: OPERATOR_NAME,
  }).map(({ name, sha256 }) => ({
    operator: name,
    sha256,
  }));
}

function parseNamedTokens(
  value: string | undefined,
  variable: string,
  name: { label: string; valid: string; pattern: RegExp },
): Array<{ name: string; sha256: string }> {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((raw, i) => {
    const entry = raw.trim();
    const colon = entry.indexOf(':');
    const owner = colon > 0 ? entry.slice(0, colon) : '';
    const secret = colon > 0 ? entry.slice(colon + 1) : '';
    const where = `invalid configuration: ${variable}: entry ${i + 1}`;
    const { label } = name;
    if (!name.pattern.test(owner))
      throw new ConfigError(
        `${where}: expected ${label}:token or ${label}:sha256=<64 hex digits> with a valid ${name.valid}`,
      );
    if (secret.startsWith('sha256=')) {
      const digest = secret.slice('sha256='.length).toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(digest)) throw new ConfigError(`${where}: sha256= must be followed by 64 hex digits`);
      return { name: owner, sha256: digest };
    }
    if (secret.length < MIN_API_TOKEN_LENGTH || /[\s,]/.test(secret)) {
      throw new ConfigError(
        `${where}: the token must be at least ${MIN_API_TOKEN_LENGTH} characters without spaces or commas`,
      );
    }
    return { name: owner, sha256: createHash('sha256').update(secret).digest('hex') };
  });
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** One line per problem, each naming the variable: what an operator needs to fix it. */
function describeIssues(error: z.ZodError): string {
  return formatIssues(error.issues, { root: '(environment)' });
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const blankless = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(blankless);
  if (!parsed.success) throw new ConfigError(`invalid configuration: ${describeIssues(parsed.error)}`);
  const e = parsed.data;
  const llm = llmConfig(e);
  const archiveUriValue = e.NOCTURNE_ARCHIVE_URI ?? `file://${e.NOCTURNE_DATA_DIR}/archive`;
  if (archiveUriValue.startsWith('s3://') && !(e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError(
      'invalid configuration: S3_ACCESS_KEY_ID: required (with S3_SECRET_ACCESS_KEY) when NOCTURNE_ARCHIVE_URI is s3://',
    );
  }
  return {
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.NOCTURNE_TASK_QUEUE },
    database: databaseConfig(e),
    audit: auditConfig(e),
    archive: {
      uri: archiveUriValue,
      producer: e.NOCTURNE_PRODUCER ?? 'nocturne',
      cacheBytes: e.NOCTURNE_ARCHIVE_CACHE_MB * 1024 * 1024,
      s3: {
        region: e.S3_REGION,
        ...(e.S3_ENDPOINT ? { endpoint: e.S3_ENDPOINT } : {}),
        ...(e.S3_ACCESS_KEY_ID ? { accessKeyId: e.S3_ACCESS_KEY_ID } : {}),
        ...(e.S3_SECRET_ACCESS_KEY ? { secretAccessKey: e.S3_SECRET_ACCESS_KEY } : {}),
      },
    },
    embedding: {
      provider: e.NOCTURNE_EMBEDDING_PROVIDER,
      url: e.NOCTURNE_EMBEDDING_URL,
      model: e.NOCTURNE_EMBEDDING_MODEL,
      dimension: e.NOCTURNE_EMBEDDING_DIM,
      similarityFloor: e.NOCTURNE_EMBEDDING_SIMILARITY_FLOOR ?? defaultSimilarityFloor(e.NOCTURNE_EMBEDDING_MODEL),
      batchSize: e.NOCTURNE_EMBEDDING_BATCH_SIZE,
      maxInputChars: e.NOCTURNE_EMBEDDING_MAX_INPUT_CHARS,
      maxBatchChars: e.NOCTURNE_EMBEDDING_MAX_BATCH_CHARS,
    },
    llm,
    triggers: {
      scheduleCron: e.NOCTURNE_SCHEDULE_CRON,
      scheduleTimeZone: e.NOCTURNE_SCHEDULE_TIMEZONE,
      nightlyConcurrency: e.NOCTURNE_NIGHTLY_CONCURRENCY,
      conflictThreshold: e.NOCTURNE_CONFLICT_THRESHOLD,
      conflictCooldownSeconds: e.NOCTURNE_CONFLICT_COOLDOWN_SECONDS,
    },
    api: apiConfig(e),
    dataDir: e.NOCTURNE_DATA_DIR,
    strictServices: e.NOCTURNE_STRICT_SERVICES ?? e.CI ?? false,
  };
}

function apiConfig(e: Env): Config['api'] {
  const agents = parseApiTokens(e.NOCTURNE_API_TOKENS);
  const auditors = parseApiTokens(e.NOCTURNE_AUDIT_TOKENS, 'audit');
  refuseDuplicateTokens([
    { variable: 'NOCTURNE_API_TOKENS', tokens: agents },
    { variable: 'NOCTURNE_AUDIT_TOKENS', tokens: auditors },
  ]);
  if (Boolean(e.NOCTURNE_API_TLS_CERT) !== Boolean(e.NOCTURNE_API_TLS_KEY))
    throw new ConfigError('invalid configuration: NOCTURNE_API_TLS_CERT and NOCTURNE_API_TLS_KEY: set both or neither');
  return {
    host: e.NOCTURNE_API_HOST,
    port: e.NOCTURNE_API_PORT,
    tokens: [...agents, ...auditors],
    operators: parseOperatorTokens(e.NOCTURNE_OPERATOR_TOKENS),
    limits: {
      ratePerSecond: e.NOCTURNE_API_RATE_PER_SECOND,
      burst: e.NOCTURNE_API_RATE_BURST,
      concurrency: e.NOCTURNE_API_CONCURRENCY,
      deadlineMs: e.NOCTURNE_API_DEADLINE_MS,
    },
    ...(e.NOCTURNE_API_TLS_CERT && e.NOCTURNE_API_TLS_KEY
      ? { tls: { certFile: e.NOCTURNE_API_TLS_CERT, keyFile: e.NOCTURNE_API_TLS_KEY } }
      : {}),
    allowPlaintext: e.NOCTURNE_API_ALLOW_PLAINTEXT ?? false,
  };
}

function auditConfig(e: Env): Config['audit'] {
  if (e.NOCTURNE_AUDIT_KEY) return { key: e.NOCTURNE_AUDIT_KEY };
  if (e.NOCTURNE_ENV === 'production') {
    throw new ConfigError(
      'invalid configuration: NOCTURNE_AUDIT_KEY: required when NOCTURNE_ENV=production (a secret of at least 32 characters, kept outside the database, that keys the audit chain)',
    );
  }
  return {};
}

function databaseConfig(e: Env): Config['database'] {
  if (!e.DATABASE_URL) {
    if (e.NOCTURNE_MIGRATION_DATABASE_URL)
      throw new ConfigError(
        'invalid configuration: DATABASE_URL: required when NOCTURNE_MIGRATION_DATABASE_URL is set',
      );
    return { kind: 'pglite', dataDir: `${e.NOCTURNE_DATA_DIR}/pglite` };
  }
  const migration = e.NOCTURNE_MIGRATION_DATABASE_URL;
  return { kind: 'postgres', url: e.DATABASE_URL, ...(migration ? { migrationUrl: migration } : {}) };
}

function llmConfig(e: Env): Config['llm'] {
  if (e.NOCTURNE_LLM_PROVIDER === 'none') return { provider: 'none' };
  if (!e.NOCTURNE_LLM_URL || !e.NOCTURNE_LLM_MODEL) {
    throw new ConfigError(
      `invalid configuration: NOCTURNE_LLM_URL and NOCTURNE_LLM_MODEL: required when NOCTURNE_LLM_PROVIDER=${e.NOCTURNE_LLM_PROVIDER}`,
    );
  }
  return {
    provider: e.NOCTURNE_LLM_PROVIDER,
    url: e.NOCTURNE_LLM_URL,
    model: e.NOCTURNE_LLM_MODEL,
    ...(e.NOCTURNE_LLM_API_KEY ? { apiKey: e.NOCTURNE_LLM_API_KEY } : {}),
  };
}

let cached: Config | undefined;

/** Parse `process.env` once. Composition roots only. */
export function loadConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/**
 * The cosine below which a model's vectors say "unrelated". e5 models are trained with a low
 * temperature, so their cosines crowd into 0.7–1.0 (their model card says so) and an unrelated
 * pair still scores about 0.7; recall rescales similarity from this floor so that the vector
 * part spreads over 0..1 like the text part. Other models: 0 (cosine as is).
 */
export function defaultSimilarityFloor(model: string): number {
  return /(^|[^a-z])e5([^a-z]|$)/i.test(model) ? 0.7 : 0;
}
