import { useEffect, useSyncExternalStore } from 'react';
import { EventStream, type StreamStatus } from './event-stream';
import { leadOneTab } from './tab-leader';

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

/** What one browser's tabs say to each other about prices (price-tabs channel); see PriceStreamStore. */
type TabMessage =
  | { kind: 'hello' }
  | { kind: 'need'; tab: string; markets: readonly string[] }
  | { kind: 'bye'; tab: string }
  | { kind: 'quote'; quote: LiveQuote }
  | { kind: 'status'; status: StreamStatus };

/** Where one browser's tabs meet for prices: the leader's election (tab-leader.ts) and the BroadcastChannel. */
export const PRICE_STREAM_NAME = 'paper-trading:price-stream';

const STATUSES: readonly StreamStatus[] = ['off', 'connecting', 'live', 'lost'];

function asTabMessage(d: unknown): TabMessage | null {
  const m = d as Partial<Record<string, unknown>> | null;
  switch (m?.kind) {
    case 'hello':
      return { kind: 'hello' };
    case 'need':
      return typeof m.tab === 'string' && Array.isArray(m.markets) && m.markets.every((x) => typeof x === 'string')
        ? { kind: 'need', tab: m.tab, markets: m.markets as string[] }
        : null;
    case 'bye':
      return typeof m.tab === 'string' ? { kind: 'bye', tab: m.tab } : null;
    case 'quote':
      return isQuote(m.quote) ? { kind: 'quote', quote: m.quote } : null;
    case 'status':
      return STATUSES.includes(m.status as StreamStatus) ? { kind: 'status', status: m.status as StreamStatus } : null;
    default:
      return null;
  }
}

/**
 * The browser's one price stream, shared by all its tabs. Chromium holds at most six connections per host over HTTP/1.1
 * (the documented HAProxy deployment): a stream per tab left the sixth tab unable to load even its HTML (issue 53, item 3).
 *
 * Each page says which markets it shows (need). One tab, the leader elected under PRICE_STREAM_NAME (tab-leader.ts:
 * a Web Lock, or a lease on an insecure origin), opens the stream for the union of every tab's needs and passes each
 * price and its status on to the others over a BroadcastChannel; the others send the leader their own needs (each time
 * they change, and again when a new leader says hello) and never open a stream. When the leader closes, another tab is
 * elected, says hello and opens the stream again. Without BroadcastChannel, each tab leads itself.
 *
 * The leader's stream: while its markets cover every need it stays as it is (a page of fewer markets re-uses it); a
 * need of a market it lacks re-opens it on the union of both (the list's markets and the one opened), so browsing from
 * a list costs one connection. When nothing needs it any more it closes after LINGER_MS. Quotes are kept per token; one
 * older than the one held is ignored, as the server does.
 */
class PriceStreamStore {
  /** This tab's needs, by the id need() gave them. */
  private readonly needs = new Map<number, readonly string[]>();
  private nextNeed = 1;
  /** The other tabs' needs, by tab (the leader's only). */
  private readonly tabNeeds = new Map<string, readonly string[]>();
  private readonly tab = Math.random().toString(36).slice(2);
  private channel: BroadcastChannel | null = null;
  private joined = false;
  private leader = false;
  private sentNeed = '';
  private readonly quotes = new Map<string, LiveQuote>();
  private stream: EventStream | null = null;
  private following = new Set<string>();
  private linger: ReturnType<typeof setTimeout> | undefined;
  private pending = false;
  private status: StreamStatus = 'off';
  private version = 0;
  private readonly listeners = new Set<() => void>();

  need(marketIds: readonly string[]): () => void {
    this.join();
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

  /** Joins the browser's tabs at the first need: stands for leader (for the tab's life) and hears the channel. */
  private join(): void {
    if (this.joined) return;
    this.joined = true;
    if (typeof BroadcastChannel !== 'undefined') {
      const channel = new BroadcastChannel(PRICE_STREAM_NAME);
      this.channel = channel;
      channel.onmessage = (m: MessageEvent) => {
        const msg = asTabMessage(m.data);
        if (msg) this.hear(msg);
      };
      // A page leaving says so, so the leader stops following what only it showed; one coming back from the
      // back-forward cache says its needs again.
      addEventListener('pagehide', () => this.post({ kind: 'bye', tab: this.tab }));
      addEventListener('pageshow', (e) => {
        if (e.persisted) {
          this.sentNeed = '';
          this.schedule();
        }
      });
    }
    leadOneTab(PRICE_STREAM_NAME, () => {
      this.leader = true;
      this.post({ kind: 'hello' });
      this.schedule();
      // Another tab leads now (this one left, or slept past its lease): it says hello and hears this tab's needs.
      return () => {
        this.leader = false;
        this.tabNeeds.clear();
        clearTimeout(this.linger);
        this.stop();
        this.sentNeed = '';
        this.schedule();
      };
    });
  }

  private post(msg: TabMessage): void {
    this.channel?.postMessage(msg);
  }

  private hear(msg: TabMessage): void {
    switch (msg.kind) {
      case 'hello':
        // A new leader: it learns every tab's needs afresh.
        this.sentNeed = '';
        this.schedule();
        return;
      case 'need':
        if (!this.leader) return;
        this.tabNeeds.set(msg.tab, msg.markets);
        // The newcomer hears the status and the prices held of its markets now, not at their next move.
        this.post({ kind: 'status', status: this.status });
        for (const q of this.quotes.values()) if (msg.markets.includes(q.marketId)) this.post({ kind: 'quote', quote: q });
        this.schedule();
        return;
      case 'bye':
        if (this.tabNeeds.delete(msg.tab)) this.schedule();
        return;
      case 'quote':
        this.take(msg.quote);
        return;
      case 'status':
        if (this.leader) return;
        this.status = msg.status;
        this.changed();
        return;
    }
  }

  private take(q: LiveQuote): boolean {
    const held = this.quotes.get(q.tokenId);
    if (held && Date.parse(held.at) > Date.parse(q.at)) return false;
    this.quotes.set(q.tokenId, q);
    this.changed();
    return true;
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
    const mine = new Set<string>();
    for (const ids of this.needs.values()) for (const id of ids) mine.add(id);
    if (!this.leader) {
      const key = [...mine].sort().join(',');
      if (key !== this.sentNeed) {
        this.sentNeed = key;
        this.post({ kind: 'need', tab: this.tab, markets: [...mine] });
      }
      return;
    }
    const wanted = new Set<string>();
    for (const ids of [[...mine], ...this.tabNeeds.values()]) for (const id of ids) if (wanted.size < MAX_MARKETS) wanted.add(id);
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
        if (isQuote(data) && this.take(data)) this.post({ kind: 'quote', quote: data });
      },
      onStatus: (s) => {
        // The stream closed on stepping down ends quietly: the new leader tells its status.
        if (!this.leader) return;
        this.status = s;
        this.post({ kind: 'status', status: s });
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
