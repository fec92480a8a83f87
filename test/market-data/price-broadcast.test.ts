import type { Queryable } from '../../src/db/database';
import { createLogger } from '../../src/logger';
import { parsePricePayload, PriceBroadcast, type QuoteTick } from '../../src/market-data/price-broadcast';

/** A database whose NOTIFY statements wait until the test lets them finish; the mirror holds tokens a1, b1 of markets a, b. */
class HeldDatabase implements Queryable {
  notify(): void {
    throw new Error('a read announces nothing');
  }
  readonly notified: string[][] = [];
  private release: Array<() => void> = [];
  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (sql.includes('FROM market_tokens')) {
      const ids = params[0] as string[];
      return ids.filter((id) => id === 'a1' || id === 'b1').map((id) => ({ token_id: id, market_id: id[0] })) as T[];
    }
    this.notified.push((params[0] as string[]).flatMap((p) => parsePricePayload(p).map((t) => `${t.tokenId}@${t.priceMicro}`)));
    await new Promise<void>((r) => this.release.push(r));
    return [];
  }
  /** Lets the statements under way finish. */
  finish(): void {
    this.release.splice(0).forEach((r) => r());
  }
}

const quote = (tokenId: string, price: number): QuoteTick => ({
  tokenId,
  priceMicro: BigInt(price),
  bidMicro: BigInt(price - 10),
  askMicro: BigInt(price + 10),
  at: new Date(1_800_000_000_000 + price),
});
const settle = () => new Promise((r) => setTimeout(r, 5));

describe('live quotes announced by PriceBroadcast', () => {
  test('when quotes come while a statement is under way, then the next one carries the latest of each token, with its market, and none is left behind', async () => {
    const db = new HeldDatabase();
    const b = new PriceBroadcast(db, createLogger('silent'));
    b.announce([quote('a1', 100)]);
    await settle();
    expect(db.notified).toEqual([['a1@100']]);
    b.announce([quote('a1', 200)]);
    b.announce([quote('b1', 300), quote('zz', 1)]); // zz: not in the mirror, no stream can name it
    b.announce([quote('a1', 250)]);
    await settle();
    expect(db.notified).toHaveLength(1); // one statement at a time
    db.finish();
    await settle();
    expect(db.notified).toEqual([['a1@100'], ['a1@250', 'b1@300']]);
    db.finish();
    await settle();
    // Announced after the drain ended: a statement of its own, at once.
    b.announce([quote('b1', 400)]);
    await settle();
    expect(db.notified[2]).toEqual(['b1@400']);
    db.finish();
    await b.stop();
  });

  test('when the broadcast has stopped, then quotes are not announced', async () => {
    const db = new HeldDatabase();
    const b = new PriceBroadcast(db, createLogger('silent'));
    await b.stop();
    b.announce([quote('a1', 100)]);
    await settle();
    expect(db.notified).toEqual([]);
  });
});
