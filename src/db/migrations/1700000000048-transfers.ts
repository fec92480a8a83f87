import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger of transfers (issue 50, TigerBeetle's model): every movement of cash or shares is one row moving
 * `amount_micro` of `asset` ('USD', or a token id for shares) from `debit_account` to `credit_account`, so every
 * transfer's debit equals its credit by construction. Accounts are named (src/domain/ledger/accounts.ts): `cash:<user>`,
 * `position:<position>` (a person's holding of a token), `pool:<community market>`, and the counter-accounts `venue`,
 * `grants`, `rewards`, `settlement`. A reservation is a `pending` transfer keyed by its order; a fill `post`s part of
 * it and a cancel, expiry or amend `void`s the rest (those rows carry the pending's accounts and its order).
 *
 * The backfill writes the transfers of an existing database's history — its journal entries, its trades' shares and
 * its open orders' reservations — so its audit stays clean after the upgrade.
 */
export class Transfers1700000000048 implements MigrationInterface {
  name = 'Transfers1700000000048';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transfers (
        id bigserial PRIMARY KEY,
        debit_account text NOT NULL,
        credit_account text NOT NULL,
        asset text NOT NULL,
        amount_micro bigint NOT NULL CHECK (amount_micro > 0),
        kind text NOT NULL,
        phase text NOT NULL DEFAULT 'posted' CHECK (phase IN ('posted', 'pending', 'post', 'void')),
        order_id uuid,
        ref text,
        created_at timestamptz NOT NULL,
        CONSTRAINT transfers_two_accounts CHECK (debit_account <> credit_account),
        CONSTRAINT transfers_pending_by_order CHECK ((phase = 'posted') = (order_id IS NULL))
      )`);
    await q.query('CREATE INDEX transfers_debit ON transfers (debit_account)');
    await q.query('CREATE INDEX transfers_credit ON transfers (credit_account)');
    await q.query('CREATE INDEX transfers_order ON transfers (order_id) WHERE order_id IS NOT NULL');

    // Cash: each journal entry with its counter-account (a trade of a community market against its pool).
    await q.query(`
      INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, ref, created_at)
      SELECT CASE WHEN l.amount_micro < 0 THEN 'cash:' || l.user_id ELSE x.counter END,
             CASE WHEN l.amount_micro < 0 THEN x.counter ELSE 'cash:' || l.user_id END,
             'USD', abs(l.amount_micro), l.type, l.ref, l.created_at
      FROM ledger_entries l
      LEFT JOIN trades t ON l.type IN ('buy', 'sell', 'settlement') AND t.id::text = l.ref
      CROSS JOIN LATERAL (SELECT CASE
        WHEN l.type = 'grant' THEN 'grants'
        WHEN l.type = 'challenge_reward' THEN 'rewards'
        WHEN l.type IN ('pool_fund', 'pool_return') THEN 'pool:' || l.ref
        WHEN EXISTS (SELECT 1 FROM community_pools p WHERE p.market_id::text = t.market_id) THEN 'pool:' || t.market_id
        WHEN l.type = 'settlement' THEN 'settlement'
        ELSE 'venue' END AS counter) x
      WHERE l.amount_micro <> 0
      ORDER BY l.id`);
    // Shares: each trade's, from the venue (or the community market's pool) into the position, back out, or settled.
    await q.query(`
      INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, ref, created_at)
      SELECT CASE WHEN t.side = 'BUY' THEN x.counter ELSE 'position:' || t.position_id END,
             CASE WHEN t.side = 'BUY' THEN 'position:' || t.position_id WHEN t.side = 'SELL' THEN x.counter ELSE 'settlement' END,
             t.token_id, t.quantity_micro, lower(t.side), t.id::text, t.created_at
      FROM trades t
      CROSS JOIN LATERAL (SELECT CASE WHEN EXISTS (SELECT 1 FROM community_pools p WHERE p.market_id::text = t.market_id)
        THEN 'pool:' || t.market_id ELSE 'venue' END AS counter) x
      WHERE t.quantity_micro > 0
      ORDER BY t.created_at, t.id`);
    // Reservations: each open order's, as a pending transfer.
    await q.query(`
      INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, phase, order_id, ref, created_at)
      SELECT 'cash:' || user_id, 'venue', 'USD', reserved_cash_micro, 'reserve', 'pending', id, id::text, updated_at
      FROM orders WHERE state IN ('open', 'partially_filled') AND reserved_cash_micro > 0
      UNION ALL
      SELECT 'position:' || position_id, 'venue', token_id, reserved_shares_micro, 'reserve', 'pending', id, id::text, updated_at
      FROM orders WHERE state IN ('open', 'partially_filled') AND reserved_shares_micro > 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE transfers');
  }
}
