/** What a page can say of a stream: not needed (off), opening, receiving, or lost and about to try again. */
export type StreamStatus = 'off' | 'connecting' | 'live' | 'lost';

/** The first retry after a lost stream waits this long; each failure in a row doubles it, up to the cap. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** The wait before the `failures`-th retry in a row: 1 s, 2 s, 4 s … 30 s, with up to a fifth more at random (tabs do not retry in step). */
export function retryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
  return Math.round(base * (1 + 0.2 * random()));
}

export interface EventStreamOptions {
  /** The address to open; asked again at each (re)connection, so a resumable stream can name where it stopped. */
  url: () => string;
  /** Named SSE events to hear (`event: price`), each with its parsed JSON data. */
  events: readonly string[];
  onEvent: (event: string, data: unknown, id: string) => void;
  onStatus: (status: StreamStatus) => void;
}

/**
 * One Server-Sent Events connection that comes back by itself. The browser's own EventSource retry gives up on an answer
 * that is not a stream (a 429, a 503) and retries a dropped one at a fixed pace; here every error closes the connection
 * and a new one is opened after a growing wait (retryDelayMs), reset once a connection opens. close() ends it for good.
 */
export class EventStream {
  private source: EventSource | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly opts: EventStreamOptions) {
    this.connect();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.source?.close();
    this.source = null;
    this.opts.onStatus('off');
  }

  private connect(): void {
    if (this.closed) return;
    this.opts.onStatus('connecting');
    const source = new EventSource(this.opts.url(), { withCredentials: true });
    this.source = source;
    source.onopen = () => {
      this.failures = 0;
      this.opts.onStatus('live');
    };
    source.onerror = () => {
      if (this.source !== source) return;
      source.close();
      this.source = null;
      this.failures += 1;
      this.opts.onStatus('lost');
      this.timer = setTimeout(() => this.connect(), retryDelayMs(this.failures));
    };
    for (const name of this.opts.events) {
      source.addEventListener(name, (e) => {
        const message = e as MessageEvent;
        let data: unknown;
        try {
          data = JSON.parse(String(message.data));
        } catch {
          return; // not JSON: not an event of this API
        }
        this.opts.onEvent(name, data, message.lastEventId);
      });
    }
  }
}
