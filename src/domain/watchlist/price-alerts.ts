import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import { notify } from '../notifications/notify';
import type { PriceChange } from '../trading/price-service';

/** Cents as people read them: 62¢, 4.5¢. */
const cents = (micro: bigint) => `${Number(micro) / 10_000}¢`;

/**
 * Price alerts firing on the price path: at each batch of price changes the service sees (the market sync, live
 * quotes that moved), every armed alert on a YES token whose mid is now at or beyond its threshold fires once: its
 * fired_at is set and a `price_alert` notification (with its `notification` account event) is written in the same
 * transaction, so an alert never fires twice and never fires without its notification.
 */
export class PriceAlerts {
  constructor(
    private readonly db: Database,
    private readonly log: Logger,
  ) {}

  /** Fires the alerts the changes cross; returns how many fired. */
  async onPriceChanges(changes: PriceChange[], now: Date): Promise<number> {
    if (changes.length === 0) return 0;
    // The last change of each token wins (a batch may carry a token twice).
    const mids = new Map(changes.map((c) => [c.tokenId, (c.bidMicro + c.askMicro) / 2n]));
    return this.db.transaction(async (tx) => {
      const fired = await tx.query<{ user_id: string; market_id: string; question: string; side: 'above' | 'below'; threshold: bigint; mid: bigint }>(
        `WITH x AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS x(token_id, mid)),
         hit AS (
           SELECT w.user_id, w.market_id, x.mid,
             (w.alert_above_micro IS NOT NULL AND w.above_fired_at IS NULL AND x.mid >= w.alert_above_micro) AS above,
             (w.alert_below_micro IS NOT NULL AND w.below_fired_at IS NULL AND x.mid <= w.alert_below_micro) AS below
           FROM x JOIN market_tokens t ON t.token_id = x.token_id AND t.outcome = 'YES'
           JOIN watchlist_entries w ON w.market_id = t.market_id
         ),
         upd AS (
           UPDATE watchlist_entries w
           SET above_fired_at = CASE WHEN hit.above THEN $3::timestamptz ELSE w.above_fired_at END,
               below_fired_at = CASE WHEN hit.below THEN $3::timestamptz ELSE w.below_fired_at END
           FROM hit WHERE w.user_id = hit.user_id AND w.market_id = hit.market_id AND (hit.above OR hit.below)
           RETURNING w.user_id, w.market_id, hit.mid, hit.above, hit.below, w.alert_above_micro, w.alert_below_micro
         )
         SELECT upd.user_id, upd.market_id, m.question, s.side, s.threshold, upd.mid
         FROM upd JOIN markets m ON m.id = upd.market_id
         CROSS JOIN LATERAL (VALUES ('above', upd.above, upd.alert_above_micro), ('below', upd.below, upd.alert_below_micro)) AS s(side, on_, threshold)
         WHERE s.on_
         ORDER BY upd.user_id, upd.market_id, s.side`,
        [[...mids.keys()], [...mids.values()].map(String), now],
      );
      for (const f of fired) {
        const mid = BigInt(f.mid);
        await notify(tx, {
          userId: f.user_id,
          type: 'price_alert',
          title: `Price alert: ${f.question}`,
          message: `YES is at ${cents(mid)}, ${f.side === 'above' ? 'at or above' : 'at or below'} your alert at ${cents(BigInt(f.threshold))}.`,
          // One notification per firing: an alert set again fires again, under a new ref.
          ref: `${f.market_id}:${f.side}:${now.getTime()}`,
          at: now,
        });
      }
      if (fired.length) this.log.debug('price alerts fired', { alerts: fired.length });
      return fired.length;
    });
  }
}
