/**
 * Fixed loopback endpoints and credentials of the local stack (`nocturne stack up`).
 * Tests and the stack scripts both read them from here, so there is one place to change a port.
 * These credentials protect a developer's loopback-only servers; production supplies its own.
 */
import { stackAuditKey } from './audit-key.ts';

/**
 * PostgreSQL's port, overridable so a second cluster (another checkout's `var/`) can run beside
 * the usual one, e.g. to try a change to the stack's roles without touching a shared server.
 */
const postgresPort = Number(process.env['NOCTURNE_STACK_POSTGRES_PORT'] ?? 54329);

export const STACK = {
  host: '127.0.0.1',
  // httpPort/metricsPort are pinned too (start-dev picks random free ports otherwise).
  temporal: { port: 7233, uiPort: 8233, httpPort: 7243, metricsPort: 7244, namespace: 'default' },
  /**
   * Two logins (docs/SECURITY.md): `user` is the runtime login (NOSUPERUSER NOBYPASSRLS, a member
   * of the app role only); `owner` owns the database and its objects and runs the migrations.
   */
  postgres: {
    port: postgresPort,
    user: 'nocturne',
    password: 'nocturne',
    owner: 'nocturne_owner',
    ownerPassword: 'nocturne-owner',
    database: 'nocturne',
  },
  s3: {
    port: 8333,
    accessKeyId: 'nocturne',
    secretAccessKey: 'nocturne-secret-key',
    bucket: 'nocturne',
    region: 'us-east-1',
    // SeaweedFS' internal servers (gRPC on each port + 10000), all on loopback.
    masterPort: 9333,
    volumePort: 9340,
    filerPort: 8888,
    adminPort: 23646,
  },
  /**
   * Two single-thread servers, one per core, with the client spreading batches over both: on
   * this 2-core machine that layout embedded more passages per second than one server with two
   * threads (`nocturne bench embeddings`, docs/BENCHMARKS.md). `port` is the first one's.
   */
  embeddings: { port: 8089, ports: [8089, 8090], model: 'multilingual-e5-small', dimension: 384 },
} as const;

/** The environment that points Nocturne at the local stack, as printed by `nocturne stack up`. */
export function stackEnv(): Record<string, string> {
  const { host, temporal, postgres, s3, embeddings } = STACK;
  return {
    TEMPORAL_ADDRESS: `${host}:${temporal.port}`,
    TEMPORAL_NAMESPACE: temporal.namespace,
    DATABASE_URL: `postgres://${postgres.user}:${postgres.password}@${host}:${postgres.port}/${postgres.database}`,
    NOCTURNE_MIGRATION_DATABASE_URL: `postgres://${postgres.owner}:${postgres.ownerPassword}@${host}:${postgres.port}/${postgres.database}`,
    NOCTURNE_ARCHIVE_URI: `s3://${s3.bucket}/archive`,
    S3_ENDPOINT: `http://${host}:${s3.port}`,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    NOCTURNE_EMBEDDING_PROVIDER: 'openai',
    NOCTURNE_EMBEDDING_URL: embeddings.ports.map((port) => `http://${host}:${port}/v1`).join(','),
    NOCTURNE_EMBEDDING_MODEL: embeddings.model,
    NOCTURNE_EMBEDDING_DIM: String(embeddings.dimension),
    NOCTURNE_AUDIT_KEY: stackAuditKey(),
  };
}
