import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  PutObjectCommand,
  S3Client,
  DeleteObjectCommand,
} from '@aws-sdk/client-s3';
import { STACK } from './endpoints.ts';
import { VAR, VENV_BIN, toolPath } from './paths.ts';
import { spawnDetached } from './process.ts';
import type { Service } from './service.ts';

const DATA_DIR = path.join(VAR, 'seaweedfs');
const endpoint = `http://${STACK.host}:${STACK.s3.port}`;

/**
 * An S3 client for the local SeaweedFS. Path-style addressing (no bucket DNS names on
 * loopback) and checksums only when required: otherwise the SDK streams uploads with
 * aws-chunked framing that non-AWS servers may store verbatim.
 */
export function stackS3Client(): S3Client {
  // Node 20 is what the machines have; the SDK's "will need Node 22 from 2027" notice is known, not news.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const { region, accessKeyId, secretAccessKey } = STACK.s3;
  return new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Identities file: the stack's key pair is the only identity, so anonymous requests get 403. */
function writeIdentities(): string {
  const file = path.join(DATA_DIR, 's3-identities.json');
  const config = {
    identities: [
      {
        name: STACK.s3.accessKeyId,
        credentials: [{ accessKey: STACK.s3.accessKeyId, secretKey: STACK.s3.secretAccessKey }],
        actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
      },
    ],
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** Status of an unsigned request; must be 403 (SeaweedFS without identities would answer 200). */
export async function anonymousStatus(): Promise<number> {
  const res = await fetch(`${endpoint}/${STACK.s3.bucket}/`, { signal: AbortSignal.timeout(3_000) });
  await res.arrayBuffer();
  return res.status;
}

export const s3: Service = {
  name: 's3',
  endpoint: `${endpoint} (bucket ${STACK.s3.bucket})`,
  ports: [STACK.s3.port, STACK.s3.masterPort, STACK.s3.volumePort, STACK.s3.filerPort, STACK.s3.adminPort],
  marker: DATA_DIR,

  async start() {
    const bin = toolPath(VENV_BIN, 'weed');
    mkdirSync(DATA_DIR, { recursive: true });
    const { host, s3: c } = STACK;
    const args = [
      'mini',
      `-dir=${DATA_DIR}`,
      `-ip=${host}`,
      `-ip.bind=${host}`,
      `-s3.port=${c.port}`,
      `-s3.config=${writeIdentities()}`,
      `-master.port=${c.masterPort}`,
      `-volume.port=${c.volumePort}`,
      `-filer.port=${c.filerPort}`,
      `-admin.port=${c.adminPort}`,
      '-admin.ui=false',
      '-webdav=false',
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      '-master.telemetry=false',
      `-bucket=${c.bucket}`,
    ];
    spawnDetached('s3', bin, args);
  },

  /** Creates the bucket when `-bucket` did not (e.g. data dir from an older run). */
  async provision() {
    const client = stackS3Client();
    try {
      await client.send(new HeadBucketCommand({ Bucket: STACK.s3.bucket }));
    } catch {
      await client.send(new CreateBucketCommand({ Bucket: STACK.s3.bucket }));
    } finally {
      client.destroy();
    }
  },

  /** Refuses anonymous requests, and a signed put/get round-trips the exact bytes. */
  async health() {
    const status = await anonymousStatus();
    if (status !== 403) throw new Error(`anonymous request answered ${status}, expected 403 (identities not enforced)`);
    const client = stackS3Client();
    try {
      const { Buckets } = await client.send(new ListBucketsCommand({}));
      if (!Buckets?.some((b) => b.Name === STACK.s3.bucket)) throw new Error(`bucket ${STACK.s3.bucket} missing`);
      const Key = '.health/probe.txt';
      const body = `nocturne ${Date.now()}`;
      await client.send(new PutObjectCommand({ Bucket: STACK.s3.bucket, Key, Body: body }));
      const got = await (
        await client.send(new GetObjectCommand({ Bucket: STACK.s3.bucket, Key }))
      ).Body?.transformToString();
      if (got !== body) throw new Error(`signed get returned ${JSON.stringify(got)}, expected ${JSON.stringify(body)}`);
      await client.send(new DeleteObjectCommand({ Bucket: STACK.s3.bucket, Key }));
    } finally {
      client.destroy();
    }
  },
};
