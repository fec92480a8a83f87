import { recordTrade } from './trade-records';
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import type { Logger } from '../../logger';
import { fromMicro } from '../money/micro';
import { notify } from '../notifications/notify';
import { avgPriceMicro, settlementFill, settlementPrice, type Winner } from './fills';
import type { TradeHooks } from './trade-hooks';
import { credit } from '../ledger/cash';
import { settleShares } from '../ledger/shares';
import { SETTLEMENT } from '../ledger/accounts';

/**
 * Settles resolved markets: every open position pays 1 per winning share, 0 per losing share and
 * 0.5 per share of a void market, closes, and notifies its owner. Each position settles in its own
 * transaction under the same lock order as trading (account, then position) and only if still open,
 * so a repeated event, a second process or a racing sell can never pay twice.
 */
export class SettlementService {
  private readonly holds: ShareHolds[] = [];

  constructor(
    private readonly db: Database,
    private readonly hooks: TradeHooks,
    private readonly log: Logger,
  ) {}

  /** What else holds a position's shares (resting sell orders): taken first in every settlement, released once the position is locked. */
  onHolds(holds: ShareHolds): void {
    this.holds.push(holds);
  }

  /** Processes pending resolution events; returns how many positions settled. */
  async runOnce(now: Date): Promise<number> {
    const events = await this.db.query<{ id: bigint; market_id: string; winner: Winner }>(
      `SELECT e.id, e.market_id, e.winner FROM market_events e
       WHERE e.type = 'resolved' AND e.winner IS NOT NULL AND NOT EXISTS (SELECT 1 FROM market_settlements s WHERE s.event_id = e.id)
       ORDER BY e.id LIMIT 100`,
    );
    let settled = 0;
    for (const event of events) {
      const open = await this.db.query<{ id: string; user_id: string }>('SELECT id, user_id FROM positions WHERE market_id = $1 AND NOT is_closed', [
        event.market_id,
      ]);
      for (const p of open) {
        if (await this.settlePosition(p.id, p.user_id, event.winner, now)) settled += 1;
      }
      // The settlement's own record of the events it has processed (market_events is the market data's queue).
      await this.db.query('INSERT INTO market_settlements (event_id, processed_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [event.id.toString(), now]);
      this.log.info('market settled', { marketId: event.market_id, winner: event.winner, positions: open.length });
    }
    return settled;
  }

  private settlePosition(positionId: string, userId: string, winner: Winner, now: Date): Promise<boolean> {
    return this.settle(positionId, userId, now, {
      winnerLabel: winner,
      payout: (pos) => {
        const perShareMicro = settlementPrice(pos.outcome, winner);
        return { perShareMicro, ...settlementFill(pos, perShareMicro), won: winner === 'VOID' ? null : pos.outcome === winner };
      },
    });
  }

  /**
   * Settles one open position on the given terms, in its own transaction: the same books, journal,
   * notification and trade hooks (track record, XP, badges, leaderboards) for every kind of market.
   * `lock` runs first (a community pool row: lock order pool, sell orders, account, position), `booked` last.
   */
  async settle(positionId: string, userId: string, now: Date, terms: SettlementTerms): Promise<boolean> {
    const done = await this.db.transaction(async (tx) => {
      if (terms.lock) await terms.lock(tx);
      const releases: Array<(now: Date) => Promise<unknown>> = [];
      for (const hold of this.holds) releases.push(await hold(tx, positionId));
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const rows = await tx.query<{
        quantity_micro: bigint;
        cost_micro: bigint;
        is_closed: boolean;
        outcome: 'YES' | 'NO';
        market_id: string;
        token_id: string;
        question: string | null;
      }>(
        `SELECT p.quantity_micro, p.cost_micro, p.is_closed, p.outcome, p.market_id, p.token_id, coalesce(m.question, c.question) AS question
         FROM positions p LEFT JOIN markets m ON m.id = p.market_id LEFT JOIN community_markets c ON c.id::text = p.market_id
         WHERE p.id = $1 FOR UPDATE OF p`,
        [positionId],
      );
      const pos = rows[0];
      if (!pos || pos.is_closed) return false;
      for (const release of releases) await release(now);
      const {
        perShareMicro: perShare,
        won,
        ...fill
      } = terms.payout({ quantityMicro: pos.quantity_micro, costMicro: pos.cost_micro, outcome: pos.outcome, tokenId: pos.token_id });
      const tradeId = randomUUID();
      await settleShares(tx, positionId, fill.realizedPnlMicro, now, tradeId);
      // The settlement's trade events (the hooks, below) carry the account's balance after it.
      if (fill.payoutMicro > 0n)
        await credit(
          tx,
          { userId, counter: terms.payer ?? SETTLEMENT, type: 'settlement', amountMicro: fill.payoutMicro, ref: tradeId, at: now },
          { balanceEvent: false },
        );
      await recordTrade(tx, {
        id: tradeId,
        userId,
        positionId,
        marketId: pos.market_id,
        tokenId: pos.token_id,
        side: 'SETTLE',
        quantityMicro: BigInt(pos.quantity_micro),
        priceMicro: perShare,
        cashMicro: fill.payoutMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        feeMicro: 0n,
        at: now,
      });
      const label = terms.outcomeLabel?.(pos.token_id) ?? pos.outcome;
      await notify(tx, {
        userId,
        type: 'resolution',
        title: terms.winnerLabel === 'VOID' ? 'Market voided' : won ? 'Your position won' : 'Your position lost',
        message: `"${pos.question ?? pos.market_id}" resolved ${terms.winnerLabel}. Your ${label} position paid ${fromMicro(fill.payoutMicro)} dollars (PnL ${fromMicro(fill.realizedPnlMicro)}).`,
        ref: positionId,
        at: now,
      });
      await this.hooks.afterTrade(tx, {
        userId,
        side: 'SETTLE',
        marketId: pos.market_id,
        tokenId: pos.token_id,
        quantityMicro: pos.quantity_micro,
        cashMicro: fill.payoutMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        priceMicro: perShare,
        positionId,
        won,
        entryPriceMicro: avgPriceMicro({ quantityMicro: pos.quantity_micro, costMicro: pos.cost_micro }),
        ...(terms.ownMarket ? { ownMarket: true } : {}),
        ...(terms.thinMarket ? { thinMarket: true } : {}),
        at: now,
      });
      if (terms.booked) await terms.booked(tx, { tokenId: pos.token_id, quantityMicro: pos.quantity_micro, payoutMicro: fill.payoutMicro });
      return true;
    });
    if (done) this.hooks.committed();
    return done;
  }
}

/**
 * Something holding a position's shares besides the position: locked in the settlement's transaction before the account
 * (lock order: holds, account, position); the step it returns releases them once the position is locked.
 */
export type ShareHolds = (tx: Queryable, positionId: string) => Promise<(now: Date) => Promise<unknown>>;

/** How one position settles: its payout, and what else happens in the same transaction. */
export interface SettlementTerms {
  /** The resolution as written in the notification: YES, NO, VOID or a community outcome label. */
  winnerLabel: string;
  payout(pos: { quantityMicro: Micro; costMicro: Micro; outcome: 'YES' | 'NO'; tokenId: string }): {
    perShareMicro: Micro;
    payoutMicro: Micro;
    realizedPnlMicro: Micro;
    won: boolean | null;
  };
  /** The ledger account that pays (accounts.ts): the settlement account, or a community market's pool. */
  payer?: string;
  /** The holder created this market (TradeEvent.ownMarket): paid as any holder, left out of the track record. */
  ownMarket?: boolean;
  /** A community market still too thin for the record (TradeEvent.thinMarket): paid as any holder, left out of it. */
  thinMarket?: boolean;
  /** The outcome's name in the notification (a community outcome label); defaults to YES/NO. */
  outcomeLabel?(tokenId: string): string | undefined;
  lock?(tx: Queryable): Promise<void>;
  booked?(tx: Queryable, settled: { tokenId: string; quantityMicro: Micro; payoutMicro: Micro }): Promise<void>;
}
