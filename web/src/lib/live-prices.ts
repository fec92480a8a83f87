import { useEffect, useSyncExternalStore } from 'react';
import { EventStream, type StreamStatus } from './event-stream';

/** A token's price as the price stream (GET /api/markets/stream) last gave it; `at` is the venue's time of that price. */
export interface LiveQuote {
  tokenId: string;
  marketId: string;
  price: number;
  bid: number | null;
  ask: number | null;
  at: string;
}

/** The stream takes at most this many markets; a page asking for more follows the first ones. */
const MAX_MARKETS = 100;
/**
 * Once no page needs the stream it stays open this long: a person going from a market back to the list and on to the next
 * keeps one connection (each new connection counts as an API call against the person's per-minute budget).
 */
const LINGER_MS = 20_000;

function isQuote(d: unknown): d is LiveQuote {
  const q = d as Partial<LiveQuote> | null;
  return typeof q?.tokenId === 'string' && typeof q.marketId === 'string' && typeof q.price === 'number' && typeof q.at === 'string';
}

/**
 * The tab's one price stream. Each page says which markets it shows (need); the stream follows the union of what is
 * needed. While its markets cover every need it stays as it is (a page of fewer markets re-uses it); a page with a
 * market it lacks re-opens it on the union of both (the list's markets and the one opened), so browsing from a list
 * costs one connection. When nothing needs it any more it closes after LINGER_MS. Quotes are kept per token; one
 * older than the one held is ignored, as the server does.
 */
class PriceStreamStore {
  private readonly needs = new Map<number, readonly string[]>();
  private nextNeed = 1;
  private readonly quotes = new Map<string, LiveQuote>();
  private stream: EventStream | null = null;
  private following = new Set<string>();
  private linger: ReturnType<typeof setTimeout> | undefined;
  private pending = false;
  private status: StreamStatus = 'off';
  private version = 0;
  private readonly listeners = new Set<() => void>();

  need(marketIds: readonly string[]): () => void {
    const id = this.nextNeed++;
    this.needs.set(id, marketIds);
    this.schedule();
    return () => {
      this.needs.delete(id);
      this.schedule();
    };
  }

  quote(tokenId: string): LiveQuote | undefined {
    return this.quotes.get(tokenId);
  }

  get state(): StreamStatus {
    return this.status;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): number => this.version;

  private changed(): void {
    this.version += 1;
    for (const l of this.listeners) l();
  }

  /** Needs change in bursts (a page mounting several cards): the stream is settled once they are all in. */
  private schedule(): void {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      this.settle();
    });
  }

  private settle(): void {
    const wanted = new Set<string>();
    for (const ids of this.needs.values()) for (const id of ids) if (wanted.size < MAX_MARKETS) wanted.add(id);
    if (wanted.size === 0) {
      if (this.stream && this.linger === undefined) this.linger = setTimeout(() => this.stop(), LINGER_MS);
      return;
    }
    clearTimeout(this.linger);
    this.linger = undefined;
    if (this.stream && [...wanted].every((id) => this.following.has(id))) return;
    const union = new Set([...wanted, ...this.following]);
    this.open(union.size <= MAX_MARKETS ? union : wanted);
  }

  private open(markets: Set<string>): void {
    this.stream?.close();
    this.following = markets;
    const query = encodeURIComponent([...markets].sort().join(','));
    this.stream = new EventStream({
      url: () => `/api/markets/stream?markets=${query}`,
      events: ['price'],
      onEvent: (_name, data) => {
        if (!isQuote(data)) return;
        const held = this.quotes.get(data.tokenId);
        if (held && Date.parse(held.at) > Date.parse(data.at)) return;
        this.quotes.set(data.tokenId, data);
        this.changed();
      },
      onStatus: (s) => {
        this.status = s;
        this.changed();
      },
    });
  }

  private stop(): void {
    this.linger = undefined;
    this.stream?.close();
    this.stream = null;
    this.following = new Set();
  }
}

const store = new PriceStreamStore();

/**
 * Follows the prices of these markets (every token of each) while the calling component is shown, and re-renders it
 * on each new price. Read them with `liveQuote(tokenId)`; `status` says whether the stream is live.
 */
export function useLivePrices(marketIds: readonly string[]): {
  liveQuote: (tokenId: string | null | undefined) => LiveQuote | undefined;
  status: StreamStatus;
} {
  const key = marketIds.join(',');
  useEffect(() => (key ? store.need(key.split(',')) : undefined), [key]);
  // On the server (entry-server.tsx) nothing streams: the snapshot is the store's empty one.
  useSyncExternalStore(store.subscribe, store.snapshot, store.snapshot);
  return { liveQuote: (tokenId) => (tokenId ? store.quote(tokenId) : undefined), status: store.state };
}

/** A price as a page read it (bid, ask, mid and when it was true) or as the stream gave it later. */
export interface Book {
  bid: number | null;
  ask: number | null;
  mid: number | null;
}

/**
 * Of a price read with the page (true at `readAt`, ms) and the stream's latest for the same token, the newer one, with
 * its time (ms). A stream price never replaces a newer read (a live quote read after the stream's last tick).
 */
export function newerPrice(read: Book, readAt: number | null, live: LiveQuote | undefined): { book: Book; at: number | null; streamed: boolean } {
  const liveAt = live ? Date.parse(live.at) : null;
  if (live && liveAt !== null && (readAt === null || liveAt >= readAt))
    return { book: { bid: live.bid, ask: live.ask, mid: live.price }, at: liveAt, streamed: true };
  return { book: read, at: readAt, streamed: false };
}
