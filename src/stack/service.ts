export const SERVICE_NAMES = ['temporal', 'postgres', 's3', 'embeddings', 'embeddings-2'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** One server of the local stack, as the supervisor sees it. */
export interface Service {
  name: ServiceName;
  /** What clients connect to, for `stack status`. */
  endpoint: string;
  /** Loopback ports the server binds; a port already taken by a foreign process fails `up` early. */
  ports: number[];
  /** A substring of our process's command line, so a recycled pid is never taken for ours. */
  marker: string;
  /**
   * A substring only this release's command line has. A running server without it was started
   * by an earlier release, and `stack up` restarts it. Absent: a running server is kept as it is.
   */
  current?: string;
  /** Spawns the server detached and records its pid. Does not wait for health. */
  start(): Promise<void>;
  /** Resolves when the server does its job end to end; throws with the reason otherwise. */
  health(): Promise<void>;
  /** One-time setup after the first successful health check (users, buckets…); idempotent. */
  provision?(): Promise<void>;
  /** Stops the process we started; the default is SIGTERM then SIGKILL. */
  stop?(pid: number): Promise<'stopped' | 'killed'>;
}

/** Whether a running server of `svc` was started by an earlier release (Service.current). */
export function startedByEarlierRelease(svc: Pick<Service, 'current'>, commandLine: string): boolean {
  return svc.current !== undefined && commandLine !== '' && !commandLine.includes(svc.current);
}
