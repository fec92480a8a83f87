import { cashAccountSql, positionAccountSql, USD, VENUE } from './accounts';
import { insertTransfersSql } from './transfers';

/**
 * The transfers of one trade, as the body of a data-modifying CTE of the trade's statement (trade-sql.ts): the cash
 * between the account and the venue's account (the venue, or a community market's pool), the shares the other way,
 * and — for a resting order's fill — the `post` of what the fill consumed of the order's pending transfer. Every
 * argument is an SQL expression; `moved` is the CTE whose row says the trade happened (a refused trade moves nothing).
 */
export interface TradeTransfersSql {
  /** The CTE of the cash movement (the debit of a buy, the credit of a sale) and that of the shares' (the position's). */
  cashMoved: string;
  sharesMoved: string;
  user: string;
  /** The position's id (`pos.id` of the CTE that opened it, or a parameter). */
  position: string;
  /** The venue's account on the other side: VENUE, or a pool's (accounts.ts), as SQL. */
  counter: string;
  token: string;
  cash: string;
  shares: string;
  /** What the fill consumed of the order's reservation, and the order. */
  release: string;
  order: string;
  ref: string;
  at: string;
}

export function buyTransfersSql(t: TradeTransfersSql): string {
  return insertTransfersSql([
    { debit: cashAccountSql(t.user), credit: t.counter, asset: `'${USD}'`, amount: t.cash, kind: 'buy', ref: t.ref, at: t.at, from: t.cashMoved },
    { debit: t.counter, credit: positionAccountSql(t.position), asset: t.token, amount: t.shares, kind: 'buy', ref: t.ref, at: t.at, from: t.sharesMoved },
    {
      debit: cashAccountSql(t.user),
      credit: `'${VENUE}'`,
      asset: `'${USD}'`,
      amount: t.release,
      kind: 'reserve',
      phase: 'post',
      order: t.order,
      ref: t.ref,
      at: t.at,
      from: t.cashMoved,
    },
  ]);
}

export function sellTransfersSql(t: TradeTransfersSql): string {
  return insertTransfersSql([
    { debit: positionAccountSql(t.position), credit: t.counter, asset: t.token, amount: t.shares, kind: 'sell', ref: t.ref, at: t.at, from: t.sharesMoved },
    { debit: t.counter, credit: cashAccountSql(t.user), asset: `'${USD}'`, amount: t.cash, kind: 'sell', ref: t.ref, at: t.at, from: t.cashMoved },
    {
      debit: positionAccountSql(t.position),
      credit: `'${VENUE}'`,
      asset: t.token,
      amount: t.release,
      kind: 'reserve',
      phase: 'post',
      order: t.order,
      ref: t.ref,
      at: t.at,
      from: t.sharesMoved,
    },
  ]);
}
