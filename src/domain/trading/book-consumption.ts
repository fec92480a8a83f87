import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import type { BookLevel, Depth } from './price-service';

/**
 * What an account's market orders took from a token's book snapshot (table book_consumption, migration 54; this module
 * is its only writer). The next walk by the same account starts below what it took, so splitting an order into small
 * ones never beats the book; the venue's next snapshot (a different book) starts afresh. Other accounts are unaffected:
 * paper fills do not take from the venue's real book, but one account cannot take the same shares twice.
 */

/** Shares an account took of one snapshot, per side (bids by its sales, asks by its buys). */
export interface Taken {
  bidMicro: Micro;
  askMicro: Micro;
}

/** Nothing taken of a snapshot (a new snapshot, an account that took none, a book without sizes). */
export const NONE: Taken = { bidMicro: 0n, askMicro: 0n };

/** Which snapshot a book is: a hash of its levels, so the same book read again (a later quote of it) is the same snapshot. */
export function snapshotKey(depth: Depth): string {
  const side = (ls: BookLevel[]) => ls.map((l) => `${l.priceMicro}:${l.sizeMicro}`).join(',');
  return createHash('sha256')
    .update(`${side(depth.bids)}|${side(depth.asks)}`)
    .digest('base64url');
}

/** The account's record of a token's book, as claimed in a trade: the snapshot it names and what the account took of it. */
export interface Claim {
  key: string;
  taken: Taken;
}

/**
 * Locks the account's record of the token's book in `tx` (creating it, naming no snapshot yet) and answers it. It needs
 * no snapshot key, so it goes out with the trade's first reads while the book is still being sized (the simulated venue
 * sizes its book by the market's traded dollars, read in the same round trip); takenOf() then reads it against the book.
 * Lock order: this row before the account row, in every trade path that calls it.
 */
export async function claimTaken(tx: Queryable, userId: string, tokenId: string, at: Date): Promise<Claim> {
  const rows = await tx.query<{ book_hash: string; bid_taken_micro: bigint; ask_taken_micro: bigint }>(
    `INSERT INTO book_consumption AS b (user_id, token_id, book_hash, updated_at) VALUES ($1, $2, '', $3)
     ON CONFLICT (user_id, token_id) DO UPDATE SET updated_at = EXCLUDED.updated_at
     RETURNING book_hash, bid_taken_micro, ask_taken_micro`,
    [userId, tokenId, at],
    'book_consumption_lock',
  );
  const r = rows[0];
  return r ? claimOf(r) : { key: '', taken: NONE };
}

/** An account's record of a book, as its row reads. */
const claimOf = (r: { book_hash: string; bid_taken_micro: bigint; ask_taken_micro: bigint }): Claim => ({
  key: r.book_hash,
  taken: { bidMicro: BigInt(r.bid_taken_micro), askMicro: BigInt(r.ask_taken_micro) },
});

/** What the account took of snapshot `key`, by its claimed record: what is recorded when it is the same snapshot, else nothing. */
export const takenOf = (claim: Claim, key: string): Taken => (claim.key === key ? claim.taken : NONE);

/**
 * Adds a fill's shares to what the account took of snapshot `key` (its record claimed in this transaction, claimTaken
 * first): added to what is recorded when the record names the same snapshot, else the record now names this one and
 * holds the fill's shares alone.
 */
export async function addTaken(tx: Queryable, userId: string, tokenId: string, key: string, side: 'BUY' | 'SELL', sharesMicro: Micro, at: Date): Promise<void> {
  const same = (column: string) => `CASE WHEN book_hash = $3 THEN ${column} ELSE 0 END`;
  await tx.query(
    side === 'BUY'
      ? `UPDATE book_consumption SET ask_taken_micro = ${same('ask_taken_micro')} + $4, bid_taken_micro = ${same('bid_taken_micro')}, book_hash = $3, updated_at = $5
         WHERE user_id = $1 AND token_id = $2`
      : `UPDATE book_consumption SET bid_taken_micro = ${same('bid_taken_micro')} + $4, ask_taken_micro = ${same('ask_taken_micro')}, book_hash = $3, updated_at = $5
         WHERE user_id = $1 AND token_id = $2`,
    [userId, tokenId, key, sharesMicro.toString(), at],
    side === 'BUY' ? 'book_consumption_take_ask' : 'book_consumption_take_bid',
  );
}

/** What the account took of snapshot `key`, read without a lock (a quote): its record, held to the key as a trade's claim is. */
export async function peekTaken(db: Queryable, userId: string, tokenId: string, key: string): Promise<Taken> {
  const rows = await db.query<{ book_hash: string; bid_taken_micro: bigint; ask_taken_micro: bigint }>(
    'SELECT book_hash, bid_taken_micro, ask_taken_micro FROM book_consumption WHERE user_id = $1 AND token_id = $2',
    [userId, tokenId],
  );
  const r = rows[0];
  return r ? takenOf(claimOf(r), key) : NONE;
}
