import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a resting order holds is answered by the ledger alone (issue 50 item 1): its pending transfers less what fills
 * posted and releases voided of them (ledger/transfers.ts heldBy). The per-order copies go; since migration 48 every
 * reservation, fill and release has written its transfer beside them, so nothing needs moving. The account's and the
 * position's maintained reserved balances stay: they are those accounts' limit checks.
 */
export class OrderHoldsInLedger1700000000073 implements MigrationInterface {
  name = 'OrderHoldsInLedger1700000000073';

  async up(q: QueryRunner): Promise<void> {
    // Refuse to drop a copy the ledger disagrees with (the audit would have reported it): nothing may be lost silently.
    const off = await q.query(`
      SELECT o.id FROM orders o
      LEFT JOIN (SELECT order_id, sum(CASE WHEN phase = 'pending' THEN amount_micro ELSE -amount_micro END) AS held FROM transfers
                 WHERE order_id IS NOT NULL GROUP BY order_id) h ON h.order_id = o.id
      WHERE coalesce(h.held, 0) <> o.reserved_cash_micro + o.reserved_shares_micro LIMIT 5`);
    if (off.length > 0) throw new Error(`orders whose reservation the ledger does not hold: ${off.map((r: { id: string }) => r.id).join(', ')}`);
    await q.query('ALTER TABLE orders DROP CONSTRAINT orders_reservation_side');
    await q.query('ALTER TABLE orders DROP CONSTRAINT orders_closed_hold_nothing');
    await q.query('ALTER TABLE orders DROP COLUMN reserved_cash_micro, DROP COLUMN reserved_shares_micro');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN reserved_cash_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_cash_micro >= 0),
      ADD COLUMN reserved_shares_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_shares_micro >= 0)`);
    await q.query(`
      UPDATE orders o SET reserved_cash_micro = CASE WHEN o.side = 'BUY' THEN h.held ELSE 0 END,
                          reserved_shares_micro = CASE WHEN o.side = 'SELL' THEN h.held ELSE 0 END
      FROM (SELECT order_id, sum(CASE WHEN phase = 'pending' THEN amount_micro ELSE -amount_micro END) AS held FROM transfers
            WHERE order_id IS NOT NULL GROUP BY order_id) h
      WHERE h.order_id = o.id AND o.state IN ('open', 'partially_filled')`);
    await q.query(`ALTER TABLE orders ADD CONSTRAINT orders_reservation_side
      CHECK ((side = 'BUY' AND reserved_shares_micro = 0) OR (side = 'SELL' AND reserved_cash_micro = 0))`);
    await q.query(`ALTER TABLE orders ADD CONSTRAINT orders_closed_hold_nothing
      CHECK (state IN ('open', 'partially_filled') OR (reserved_cash_micro = 0 AND reserved_shares_micro = 0))`);
  }
}
