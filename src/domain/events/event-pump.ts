import type { AccountEvent, EventLog } from './event-log';
import type { EventFeed } from './event-feed';
import type { AccountEventType } from './account-events';

/** Where a pump delivers (a stream's sink; see src/registry/stream.ts): false from send means "wait for drained()". */
export interface EventOutlet {
  send(event: { id: string; event: string; data: AccountEvent }): boolean;
  drained(): Promise<void>;
  readonly closed: boolean;
  onClose(listener: () => void): void;
}

/**
 * Delivers one account's events to one outlet, in seq order, from `afterSeq` on: nothing missed, nothing repeated. A
 * wake from the feed only says "there may be more": the pump reads the log from the last seq it delivered, a page at
 * a time, and stops reading while the outlet is full, so a slow client costs at most one page of memory (the rest
 * waits in the log). Wakes for seqs already delivered cost nothing.
 */
export class AccountEventPump {
  private last: bigint;
  private dirty = true;
  private running = false;

  constructor(
    private readonly deps: { log: EventLog; feed: EventFeed },
    private readonly userId: string,
    afterSeq: bigint,
    private readonly outlet: EventOutlet,
    private readonly opts: { pageSize: number; types?: readonly AccountEventType[]; onError: (err: unknown) => void },
  ) {
    this.last = afterSeq;
  }

  start(): void {
    const unsubscribe = this.deps.feed.subscribe(this.userId, (_user, seq) => {
      if (seq !== null && seq <= this.last) return;
      this.dirty = true;
      this.kick();
    });
    this.outlet.onClose(unsubscribe);
    this.kick();
  }

  /** The last seq handed to the outlet. */
  get lastSeq(): bigint {
    return this.last;
  }

  private kick(): void {
    if (this.running || this.outlet.closed) return;
    this.running = true;
    this.drain()
      .catch((err) => this.opts.onError(err))
      .finally(() => {
        this.running = false;
        if (this.dirty) this.kick();
      });
  }

  private async drain(): Promise<void> {
    while (this.dirty && !this.outlet.closed) {
      this.dirty = false;
      for (;;) {
        const page = await this.deps.log.after(this.userId, this.last, this.opts.pageSize, this.opts.types);
        for (const e of page) {
          if (this.outlet.closed) return;
          const roomy = this.outlet.send({ id: String(e.seq), event: e.type, data: e });
          this.last = BigInt(e.seq);
          if (!roomy) await this.outlet.drained();
        }
        if (page.length < this.opts.pageSize) break;
      }
    }
  }
}
