import type { Queryable } from '../../src/db/database';
import type { Depth, LivePrice, PriceService } from '../../src/domain/trading/price-service';
import { AppError } from '../../src/errors/app-error';
import { toMicro } from '../../src/domain/money/micro';

export interface SeededMarket {
  id: string;
  slug: string;
  yes: string;
  no: string;
}

let n = 0;

/** Inserts an active binary market with YES/NO tokens straight into the mirror tables. */
export async function seedMarket(db: Queryable, over: Partial<{ status: string; question: string; category: string }> = {}): Promise<SeededMarket> {
  n += 1;
  const id = `test-${n}-${Math.random().toString(36).slice(2, 8)}`;
  const m = { id, slug: `${id}-slug`, yes: `${id}-yes-${'7'.repeat(20)}`, no: `${id}-no-${'3'.repeat(20)}` };
  await db.query(
    `INSERT INTO markets (id, slug, question, category, volume, end_date, status, source) VALUES ($1, $2, $3, $4, 1000, now() + interval '7 days', $5, 'simulated')`,
    [m.id, m.slug, over.question ?? `Will test market ${n} resolve YES?`, over.category ?? 'Testing', over.status ?? 'active'],
  );
  await db.query(
    `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro) VALUES ($1, $2, 'YES', 'Yes', 500000), ($3, $2, 'NO', 'No', 500000)`,
    [m.yes, m.id, m.no],
  );
  return m;
}

/** Resolves a market the way the mirror does: status, winner and one 'resolved' event. */
export async function resolveMarket(db: Queryable, marketId: string, winner: 'YES' | 'NO' | 'VOID'): Promise<void> {
  await db.query(`UPDATE markets SET status = 'resolved', winner = $2, resolved_at = now() WHERE id = $1`, [marketId, winner]);
  await db.query(`INSERT INTO market_events (market_id, type, winner) VALUES ($1, 'resolved', $2) ON CONFLICT DO NOTHING`, [marketId, winner]);
}

/**
 * A price source the test controls: exact bid/ask per token, or unavailable. Trading tests use it
 * so fills are exact numbers; the real feeds are tested in the market-data tests.
 */
export class ControlledPrices implements PriceService {
  private readonly quotes = new Map<string, { bid: number; ask: number } | 'down'>();
  private readonly books = new Map<string, Depth>();

  set(tokenId: string, bid: number, ask = bid): void {
    this.quotes.set(tokenId, { bid, ask });
  }

  /** A published book for the token (as the CLOB's): quotes then carry it and come from 'polymarket'. Levels as [price, shares]. */
  book(tokenId: string, bids: Array<[number, number]>, asks: Array<[number, number]>): void {
    const levels = (ls: Array<[number, number]>) => ls.map(([p, s]) => ({ priceMicro: toMicro(p), sizeMicro: toMicro(s) }));
    this.books.set(tokenId, { bids: levels(bids), asks: levels(asks) });
    this.set(tokenId, bids[0]?.[0] ?? 0, asks[0]?.[0] ?? 0);
  }

  down(tokenId: string): void {
    this.quotes.set(tokenId, 'down');
  }

  async live(tokenId: string): Promise<LivePrice> {
    const q = this.quotes.get(tokenId);
    if (!q || q === 'down') throw new AppError('PRICE_UNAVAILABLE', 'Live price unavailable; nothing was traded.');
    const bidMicro = toMicro(q.bid);
    const askMicro = toMicro(q.ask);
    const depth = this.books.get(tokenId);
    return {
      tokenId,
      bidMicro,
      askMicro,
      midMicro: (bidMicro + askMicro) / 2n,
      asOf: new Date(),
      source: depth ? 'polymarket' : 'simulated',
      ...(depth ? { depth } : {}),
    };
  }
}

export interface MirrorMarket {
  id: string;
  question: string;
  volume: number;
  category?: string;
  status?: 'active' | 'closed' | 'resolved';
  winner?: 'YES' | 'NO' | 'VOID';
}

/** Markets straight into the mirror (source 'simulated', created 30 days before `now`): tokens <id>-yes / <id>-no at 0.4 / 0.6 with a one-cent spread. */
export async function addMirrorMarkets(db: Queryable, rows: MirrorMarket[], now: number): Promise<void> {
  await db.query(
    `INSERT INTO markets (id, slug, question, category, volume, end_date, status, winner, source, created_at)
     SELECT x.id, x.id || '-slug', x.question, x.category, x.volume, $7::timestamptz + interval '7 days', x.status, x.winner, 'simulated', $7::timestamptz - interval '30 days'
     FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::text[]) AS x(id, question, category, volume, status, winner)`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.question),
      rows.map((r) => r.category ?? 'Testing'),
      rows.map((r) => r.volume),
      rows.map((r) => r.status ?? 'active'),
      rows.map((r) => r.winner ?? null),
      new Date(now).toISOString(),
    ],
  );
  await db.query(
    `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
     SELECT id || '-yes', id, 'YES', 'Yes', 400000, 395000, 405000, $2::timestamptz - interval '5 minutes' FROM unnest($1::text[]) AS id
     UNION ALL
     SELECT id || '-no', id, 'NO', 'No', 600000, 595000, 605000, $2::timestamptz - interval '5 minutes' FROM unnest($1::text[]) AS id`,
    [rows.map((r) => r.id), new Date(now).toISOString()],
  );
}

/**
 * A price change as the market sync lands it: the live quote and the mirrored book of one token move together
 * (resting orders are checked against the mirrored row). `at` is the mirrored price's time (default now).
 */
export async function moveQuote(db: Queryable, prices: ControlledPrices, tokenId: string, bid: number, ask: number, at: Date = new Date()): Promise<void> {
  prices.set(tokenId, bid, ask);
  await db.query(
    `UPDATE market_tokens SET bid_micro = $2::bigint, ask_micro = $3::bigint, price_micro = ($2::bigint + $3::bigint) / 2, price_at = $4 WHERE token_id = $1`,
    [tokenId, Math.round(bid * 1e6), Math.round(ask * 1e6), at],
  );
}
