import type { Queryable } from '../db/database';
import type { Logger } from '../logger';
import { PriceCoalescer } from './price-coalescer';
import { OnDemandStart } from '../db/on-demand-start';

/** The channel changed prices are announced on (the sync's writes and live quotes), to every process (payload: lines of PriceTick, see encode). */
export const PRICE_CHANGES_CHANNEL = 'price_changes';

/** NOTIFY payloads must stay under 8000 bytes; lines are packed into chunks below this. */
const MAX_PAYLOAD = 7900;

/** A token's new price, as the mirror stored it or a live quote gave it (micro-dollars; bid and ask null when the venue gave none; `at` the venue's time). */
export interface PriceTick {
  tokenId: string;
  marketId: string;
  priceMicro: bigint;
  bidMicro: bigint | null;
  askMicro: bigint | null;
  at: Date;
}

/** Listens on a channel (Database.listen); `onResumed` after a reconnect. */
export type Listen = (channel: string, onPayload: (payload: string) => void, onResumed: () => void) => Promise<() => Promise<void>>;

const SAFE_ID = /^[^\t\n]{1,200}$/;

function encode(t: PriceTick): string {
  return [t.marketId, t.tokenId, t.priceMicro, t.bidMicro ?? '', t.askMicro ?? '', t.at.getTime()].join('\t');
}

function decode(line: string): PriceTick | undefined {
  const [marketId, tokenId, price, bid, ask, at] = line.split('\t');
  if (!marketId || !tokenId || !price || at === undefined || !/^\d+$/.test(price) || !/^\d+$/.test(at)) return undefined;
  const opt = (v: string | undefined) => (v && /^\d+$/.test(v) ? BigInt(v) : null);
  return { marketId, tokenId, priceMicro: BigInt(price), bidMicro: opt(bid), askMicro: opt(ask), at: new Date(Number(at)) };
}

/** Packs ticks into NOTIFY payloads of whole lines, each under the 8000-byte limit. */
export function pricePayloads(ticks: readonly PriceTick[]): string[] {
  const out: string[] = [];
  let chunk = '';
  for (const t of ticks) {
    if (!SAFE_ID.test(t.tokenId) || !SAFE_ID.test(t.marketId)) continue;
    const line = encode(t);
    if (chunk && Buffer.byteLength(chunk) + 1 + Buffer.byteLength(line) > MAX_PAYLOAD) {
      out.push(chunk);
      chunk = '';
    }
    chunk = chunk ? `${chunk}\n${line}` : line;
  }
  if (chunk) out.push(chunk);
  return out;
}

export function parsePricePayload(payload: string): PriceTick[] {
  return payload
    .split('\n')
    .map(decode)
    .filter((t): t is PriceTick => t !== undefined);
}

/** A live quote the service read: a price as PriceTick, before its market is looked up. */
export type QuoteTick = Omit<PriceTick, 'marketId'>;

/**
 * Changed prices, across processes: the sync leader publishes what its sync changed inside the sync's own transaction
 * (NOTIFY, delivered on commit, so only committed prices are heard), any process announces the live quotes it read
 * that moved (announce), and every process fans what it hears out to the price streams that asked for those tokens,
 * paced per token by one PriceCoalescer (so a subscriber hears the same pace whichever process or source a price came
 * from). Prices are state, not a log: when the listening session reconnected, the current prices are re-read (resume).
 */
export class PriceBroadcast {
  private readonly byToken = new Map<string, Set<(t: PriceTick) => void>>();
  private readonly lost = new Set<() => void>();
  private readonly coalescer: PriceCoalescer<PriceTick>;
  private stopListening: (() => Promise<void>) | undefined;
  private readonly onDemand = new OnDemandStart();
  /** Live quotes waiting for the next announcement (the latest per token), and the one under way. */
  private readonly outgoing = new Map<string, QuoteTick>();
  private announcing: Promise<void> | undefined;
  private stopped = false;
  /** Token → market, for live quotes (a token never changes market: MarketStore refuses it). */
  private readonly marketOf = new Map<string, string>();

  constructor(
    private readonly db: Queryable,
    private readonly log: Logger,
  ) {
    this.coalescer = new PriceCoalescer((t) => this.deliver(t));
  }

  /** Announces `ticks` in the caller's transaction (one statement, whatever their number). */
  async publish(tx: Queryable, ticks: readonly PriceTick[]): Promise<void> {
    const payloads = pricePayloads(ticks);
    if (payloads.length === 0) return;
    await tx.query(`SELECT count(pg_notify('${PRICE_CHANGES_CHANNEL}', p)) FROM unnest($1::text[]) AS p`, [payloads]);
  }

  /**
   * Announces live quotes that moved to every process, without waiting (the request that read them goes on). One
   * statement at a time: quotes read while one is under way wait for the next, the latest per token, so a slow
   * database meets a bounded queue.
   */
  announce(quotes: readonly QuoteTick[]): void {
    if (this.stopped) return;
    for (const q of quotes) this.outgoing.set(q.tokenId, q);
    this.kick();
  }

  private kick(): void {
    if (this.announcing || !this.outgoing.size || this.stopped) return;
    // Quotes that came after the last statement's loop ended, before its promise settled, go out next: none is left behind.
    this.announcing = this.drain().finally(() => {
      this.announcing = undefined;
      this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.outgoing.size && !this.stopped) {
      const quotes = [...this.outgoing.values()];
      this.outgoing.clear();
      try {
        await this.publish(this.db, await this.withMarkets(quotes));
      } catch (err) {
        this.log.error('announcing live prices failed', { tokens: quotes.length, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** The quotes with their markets; a token the mirror does not hold is left out (no stream can name it). */
  private async withMarkets(quotes: QuoteTick[]): Promise<PriceTick[]> {
    const unknown = quotes.filter((q) => !this.marketOf.has(q.tokenId)).map((q) => q.tokenId);
    if (unknown.length) {
      const rows = await this.db.query<{ token_id: string; market_id: string }>(
        'SELECT token_id, market_id FROM market_tokens WHERE token_id = ANY($1::text[])',
        [unknown],
      );
      if (this.marketOf.size + rows.length > 10_000) this.marketOf.clear();
      for (const r of rows) this.marketOf.set(r.token_id, r.market_id);
    }
    return quotes.flatMap((q) => {
      const marketId = this.marketOf.get(q.tokenId);
      return marketId ? [{ ...q, marketId }] : [];
    });
  }

  async start(listen: Listen): Promise<void> {
    if (this.stopListening) return;
    this.stopped = false;
    this.stopListening = await listen(
      PRICE_CHANGES_CHANNEL,
      (payload) => {
        for (const tick of parsePricePayload(payload)) if (this.byToken.has(tick.tokenId)) this.coalescer.offer(tick);
      },
      () => this.resume(),
    );
  }

  /**
   * Listens with `listen` only once a stream needs it (ready()): a replay run's broadcast, whose listening session would
   * otherwise cost a connection for every run loaded, streamed or not.
   */
  listenOnDemand(listen: Listen): void {
    this.onDemand.set(() => this.start(listen));
  }

  /** Whether any stream is subscribed to some token now. */
  get subscribed(): boolean {
    return this.byToken.size > 0;
  }

  /**
   * After the listening session came back, announcements made meanwhile are lost: the mirror's current prices of the
   * tokens subscribed go through the coalescer (which drops those older than a price already sent). When they cannot
   * be read, the subscribers hear `onLost` (a stream ends; its client reconnects and starts from the current prices).
   */
  private resume(): void {
    const ids = [...this.byToken.keys()];
    if (ids.length === 0) return;
    this.current(ids, []).then(
      (now) => {
        for (const { slug: _slug, ...tick } of now) if (this.byToken.has(tick.tokenId)) this.coalescer.offer(tick);
      },
      (err) => {
        this.log.error('re-reading prices after the listening session came back failed', { error: err instanceof Error ? err.message : String(err) });
        for (const lost of this.lost) lost();
      },
    );
  }

  /** Finishes the announcement under way, then stops listening. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.onDemand.cancel();
    await this.announcing;
    this.outgoing.clear();
    this.coalescer.clear();
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
  }

  private deliver(tick: PriceTick): void {
    for (const s of this.byToken.get(tick.tokenId) ?? []) {
      try {
        s(tick);
      } catch (err) {
        this.log.error('price subscriber failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** Resolves once announcements reach this broadcast's subscribers: at once when it listens (or never will), else after starting. */
  async ready(): Promise<void> {
    await this.onDemand.ready(this.stopListening !== undefined);
  }

  /** Hears the changes of these tokens (and `onLost` when some may have been missed for good); returns the unsubscribe. */
  subscribe(tokenIds: readonly string[], onTick: (t: PriceTick) => void, onLost: () => void): () => void {
    for (const id of tokenIds) {
      let set = this.byToken.get(id);
      if (!set) this.byToken.set(id, (set = new Set()));
      set.add(onTick);
    }
    this.lost.add(onLost);
    return () => {
      for (const id of tokenIds) {
        const set = this.byToken.get(id);
        set?.delete(onTick);
        if (set?.size === 0) {
          this.byToken.delete(id);
          this.coalescer.forget(id);
        }
      }
      this.lost.delete(onLost);
    };
  }

  /** The mirrored tokens named (by token id, or by market id or slug), with their current prices. */
  async current(tokenIds: readonly string[], markets: readonly string[]): Promise<Array<PriceTick & { slug: string }>> {
    const rows = await this.db.query<{
      token_id: string;
      market_id: string;
      slug: string;
      price_micro: bigint | null;
      bid_micro: bigint | null;
      ask_micro: bigint | null;
      price_at: Date | null;
    }>(
      `SELECT t.token_id, t.market_id, m.slug, t.price_micro, t.bid_micro, t.ask_micro, t.price_at FROM market_tokens t JOIN markets m ON m.id = t.market_id
       WHERE t.token_id = ANY($1::text[]) OR m.id = ANY($2::text[]) OR m.slug = ANY($2::text[]) ORDER BY t.market_id, t.outcome`,
      [tokenIds, markets],
    );
    return rows.map((r) => ({
      tokenId: r.token_id,
      marketId: r.market_id,
      slug: r.slug,
      priceMicro: r.price_micro ?? 0n,
      bidMicro: r.bid_micro,
      askMicro: r.ask_micro,
      at: r.price_at ? new Date(r.price_at) : new Date(0),
    }));
  }
}
