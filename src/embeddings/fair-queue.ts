/** One waiting request: started on a server when its lane's turn comes and a slot is free. */
interface Waiting {
  start: (server: number) => void;
}

/**
 * Requests to a set of embedding servers, with a bounded number in flight per server, dispatched
 * over lanes (one lane per tenant): a free slot goes to the waiting lane served least recently,
 * and a lane that has not been served since it last emptied goes first. A lane with a thousand
 * batches waiting and a lane with one take turns: the second lane's batch starts as soon as one
 * slot frees, instead of after the first lane's whole backlog, as a single FIFO (or the
 * server's own queue) would do.
 * Each request goes to the server with the fewest requests in flight, so batches spread over
 * every server the embedder was given.
 */
export class FairQueue {
  private readonly inFlight: number[];
  /** Lanes with something waiting, in order of arrival. */
  private readonly lanes = new Map<string, Waiting[]>();
  /** When each busy lane (waiting or in flight) was last given a slot, as a dispatch count. */
  private readonly lastServed = new Map<string, number>();
  private readonly laneInFlight = new Map<string, number>();
  private dispatched = 0;

  /**
   * @param servers how many servers requests may go to
   * @param slotsPerServer requests in flight at once on one server
   */
  constructor(
    readonly servers: number,
    private readonly slotsPerServer: number,
  ) {
    if (!Number.isInteger(servers) || servers < 1) throw new RangeError(`servers must be >= 1, got ${servers}`);
    if (!Number.isInteger(slotsPerServer) || slotsPerServer < 1)
      throw new RangeError(`slotsPerServer must be >= 1, got ${slotsPerServer}`);
    this.inFlight = new Array<number>(servers).fill(0);
  }

  /** Runs `task` on a server when `lane`'s turn comes; resolves or rejects with the task. */
  run<T>(lane: string, task: (server: number) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        start: (server) => {
          // A task that throws before its first await still frees its slot.
          Promise.resolve()
            .then(() => task(server))
            .then(resolve, reject)
            .finally(() => {
              this.inFlight[server] = (this.inFlight[server] ?? 1) - 1;
              const left = (this.laneInFlight.get(lane) ?? 1) - 1;
              if (left > 0) this.laneInFlight.set(lane, left);
              else {
                this.laneInFlight.delete(lane);
                // An idle lane is forgotten: when it comes back, it has not been served since.
                if (!this.lanes.has(lane)) this.lastServed.delete(lane);
              }
              this.dispatch();
            });
        },
      };
      const queue = this.lanes.get(lane);
      if (queue) queue.push(waiting);
      else this.lanes.set(lane, [waiting]);
      this.dispatch();
    });
  }

  /** Requests waiting, per lane (for tests and progress). */
  waiting(): Map<string, number> {
    return new Map([...this.lanes].map(([lane, q]) => [lane, q.length]));
  }

  private freeServer(): number | undefined {
    let best: number | undefined;
    this.inFlight.forEach((n, i) => {
      if (n < this.slotsPerServer && (best === undefined || n < (this.inFlight[best] ?? 0))) best = i;
    });
    return best;
  }

  /** The waiting lane served least recently; ties (lanes not served yet) go by arrival. */
  private nextLane(): string | undefined {
    let best: string | undefined;
    let bestServed = Infinity;
    for (const lane of this.lanes.keys()) {
      const served = this.lastServed.get(lane) ?? -1;
      if (served < bestServed) [best, bestServed] = [lane, served];
    }
    return best;
  }

  private dispatch(): void {
    for (let server = this.freeServer(); server !== undefined; server = this.freeServer()) {
      const lane = this.nextLane();
      if (lane === undefined) return;
      const queue = this.lanes.get(lane) as Waiting[];
      const next = queue.shift() as Waiting;
      if (queue.length === 0) this.lanes.delete(lane);
      this.lastServed.set(lane, this.dispatched++);
      this.laneInFlight.set(lane, (this.laneInFlight.get(lane) ?? 0) + 1);
      this.inFlight[server] = (this.inFlight[server] ?? 0) + 1;
      next.start(server);
    }
  }
}
