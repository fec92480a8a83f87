import type { Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { fromMicro, type Micro } from '../money/micro';
import { positionAccountSql, SETTLEMENT, VENUE } from './accounts';
import { insertTransfersSql } from './transfers';

/**
 * A position's shares: `quantity_micro` held (= bought − sold − settled) and `reserved_micro`, what its resting sell
 * orders hold. Shares leave only from the unreserved part (sellable(), written here once), and a position is only ever
 * written by these statements.
 */

/** The one rule of shares out: the position's unreserved shares, counting `release` of its reservation as freed, cover `quantity`. */
export const sellable = (quantity: string, release = '0') => `quantity_micro - (reserved_micro - ${release}) >= ${quantity}`;

export const sharesShort = (message: string, reservedMicro?: Micro) =>
  new AppError('VALIDATION_ERROR', message, {
    hint:
      reservedMicro !== undefined && reservedMicro > 0n
        ? `${fromMicro(reservedMicro)} shares are reserved by resting sell orders; cancel them with cancel_order or sell fewer.`
        : 'Read get_portfolio; shares held by resting sell orders are reserved until those orders fill or are cancelled.',
  });

/**
 * Closes a position at settlement: every share leaves as settled (a transfer to the settlement account, `ref` the
 * settlement's trade) and its PnL is realized. A position whose shares are reserved by resting sell orders does not
 * settle (its orders are cancelled first, when their market closes): an error.
 */
export async function settleShares(tx: Queryable, positionId: string, realizedMicro: Micro, at: Date, ref: string): Promise<void> {
  const done = await tx.query(
    `WITH before AS (SELECT quantity_micro, token_id FROM positions WHERE id = $1), settled AS (
       UPDATE positions SET settled_micro = settled_micro + quantity_micro, quantity_micro = 0, cost_micro = 0,
         realized_pnl_micro = realized_pnl_micro + $2, is_closed = true, closed_at = $3, updated_at = $3
       WHERE id = $1 AND NOT is_closed AND reserved_micro = 0 RETURNING id
     ), moves AS (${insertTransfersSql([
       {
         debit: positionAccountSql('$1::text'),
         credit: `'${SETTLEMENT}'`,
         asset: 'before.token_id',
         amount: 'before.quantity_micro',
         kind: 'settle',
         ref: '$4',
         at: '$3',
         from: 'before, settled',
       },
     ])})
     SELECT id FROM settled`,
    [positionId, realizedMicro.toString(), at, ref],
    'ledger_settle_shares',
  );
  if (!done[0]) throw new Error(`position ${positionId} is closed or has shares reserved by resting sell orders: it cannot settle`);
}

/** The pending transfer of a sell order's shares, or its release: $1 position, $2 shares, $3 order, $4 time; `from` gives `token_id`. */
const holdSql = (phase: 'pending' | 'void', from: string) =>
  insertTransfersSql([
    {
      debit: positionAccountSql('$1::text'),
      credit: `'${VENUE}'`,
      asset: 'token_id',
      amount: '$2',
      kind: 'reserve',
      phase,
      order: '$3',
      ref: '$3::text',
      at: '$4',
      from,
    },
  ]);

/**
 * Holds `quantityMicro` of the account's unreserved shares in a token for resting sell order `orderId` (a pending
 * transfer); returns the position's id.
 */
export async function reserveShares(tx: Queryable, userId: string, tokenId: string, quantityMicro: Micro, orderId: string, at: Date): Promise<string> {
  const pos = await tx.query<{ id: string }>(
    `WITH held AS (
       UPDATE positions SET reserved_micro = reserved_micro + $5 WHERE user_id = $1 AND token_id = $2 AND NOT is_closed AND ${sellable('$5')}
       RETURNING id, token_id
     ), pending AS (${insertTransfersSql([
       {
         debit: positionAccountSql('held.id::text'),
         credit: `'${VENUE}'`,
         asset: 'token_id',
         amount: '$5',
         kind: 'reserve',
         phase: 'pending',
         order: '$3',
         ref: '$3::text',
         at: '$4',
         from: 'held',
       },
     ])})
     SELECT id FROM held`,
    [userId, tokenId, orderId, at, quantityMicro.toString()],
    'ledger_reserve_shares',
  );
  if (!pos[0]) throw sharesShort(`Not enough unreserved shares of this token to sell ${fromMicro(quantityMicro)}.`);
  return pos[0].id;
}

/** Gives back `quantityMicro` of order `orderId`'s reservation on a position (a sell order cancelled, expired or amended: voided). */
export async function releaseShares(tx: Queryable, positionId: string, quantityMicro: Micro, orderId: string, at: Date): Promise<void> {
  const ok = await tx.query(
    `WITH freed AS (UPDATE positions SET reserved_micro = reserved_micro - $2 WHERE id = $1 AND reserved_micro >= $2 RETURNING id, token_id),
     voided AS (${holdSql('void', 'freed')})
     SELECT id FROM freed`,
    [positionId, quantityMicro.toString(), orderId, at],
    'ledger_release_shares',
  );
  if (!ok[0]) throw new Error(`position ${positionId} does not reserve ${quantityMicro} to release`);
}
