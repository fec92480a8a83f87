import type { Queryable } from '../../db/database';

/**
 * A token's record of its venue book as resting-order fills claim it (`book_claims`, migration 1700000000077): the
 * snapshot's hash, its time, its best sizes, and what this service's fills have taken from each side of it. The one
 * writer of the table; a token with no row has claimed nothing yet.
 */
export interface BookClaim {
  tokenId: string;
  /** The claimed snapshot's hash, time and best sizes. */
  hash: string;
  asOf: Date;
  bestBidSizeMicro: bigint;
  bestAskSizeMicro: bigint;
}

/**
 * Locks the token's book record and returns what has been taken from this snapshot (zero when it replaces an older one),
 * or null when a newer, different snapshot is recorded (the claimed one is stale).
 */
export async function claimBookRecord(tx: Queryable, c: BookClaim): Promise<{ bidTakenMicro: bigint; askTakenMicro: bigint } | null> {
  // The row lock (taken by the insert or the update) orders the fills of every process against one book.
  const rows = await tx.query<{ bid_taken: bigint; ask_taken: bigint }>(
    `INSERT INTO book_claims AS b (token_id, book_hash, book_at, best_bid_size_micro, best_ask_size_micro) VALUES ($1, $2, $5, $3, $4)
     ON CONFLICT (token_id) DO UPDATE SET
       bid_taken_micro = CASE WHEN b.book_hash = $2 THEN b.bid_taken_micro ELSE 0 END,
       ask_taken_micro = CASE WHEN b.book_hash = $2 THEN b.ask_taken_micro ELSE 0 END,
       best_bid_size_micro = $3, best_ask_size_micro = $4,
       book_at = CASE WHEN b.book_at IS NULL OR b.book_at < $5 THEN $5 ELSE b.book_at END,
       book_hash = $2
     WHERE b.book_hash = $2 OR b.book_at IS NULL OR b.book_at < $5
     RETURNING bid_taken_micro AS bid_taken, ask_taken_micro AS ask_taken`,
    [c.tokenId, c.hash, c.bestBidSizeMicro, c.bestAskSizeMicro, c.asOf],
    'claim_book',
  );
  const row = rows[0];
  return row ? { bidTakenMicro: BigInt(row.bid_taken), askTakenMicro: BigInt(row.ask_taken) } : null;
}

/** Records how much of the claimed snapshot's bids and asks this service's fills have taken, in total. */
export async function recordBookTaken(tx: Queryable, tokenId: string, bidTakenMicro: bigint, askTakenMicro: bigint): Promise<void> {
  await tx.query(
    'UPDATE book_claims SET bid_taken_micro = $2, ask_taken_micro = $3 WHERE token_id = $1',
    [tokenId, bidTakenMicro, askTakenMicro],
    'record_book_taken',
  );
}
