import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The single-entry journal (`ledger_entries`) retires (issue 50 item 2): every reader reads the transfers. Migration 48
 * wrote each entry's transfer, and every movement since has written both, so a cash account's posted transfers carry
 * what its entries did — the amount (signed by side), the type (kind), the ref and the time — except entries of zero,
 * which moved nothing. Before dropping, each account's entries must sum to its transfers (else nothing is dropped).
 */
export class JournalRetired1700000000074 implements MigrationInterface {
  name = 'JournalRetired1700000000074';

  async up(q: QueryRunner): Promise<void> {
    const off = await q.query(`
      SELECT e.user_id FROM (SELECT user_id, sum(amount_micro) AS total FROM ledger_entries GROUP BY user_id) e
      LEFT JOIN (SELECT account, sum(amount) AS total FROM (
                   SELECT credit_account AS account, amount_micro AS amount FROM transfers WHERE asset = 'USD' AND phase = 'posted'
                   UNION ALL SELECT debit_account, -amount_micro FROM transfers WHERE asset = 'USD' AND phase = 'posted') m
                 GROUP BY account) t ON t.account = 'cash:' || e.user_id
      WHERE e.total <> coalesce(t.total, 0) LIMIT 5`);
    if (off.length > 0) throw new Error(`accounts whose journal and transfers differ: ${off.map((r: { user_id: string }) => r.user_id).join(', ')}`);
    await q.query('DROP TABLE ledger_entries');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger_entries (
        id bigserial PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        type text NOT NULL,
        amount_micro bigint NOT NULL,
        ref text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ledger_entries_user_idx ON ledger_entries (user_id, id)`);
    // A buy's fee was its own transfer: it joins the buy's (or sale's) entry again, as the journal kept one per trade.
    await q.query(`
      INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at)
      SELECT u.id, min(x.kind), sum(x.amount), x.ref, min(x.created_at) FROM (
        SELECT substr(credit_account, 6) AS account, CASE kind WHEN 'fee' THEN NULL ELSE kind END AS kind, amount_micro AS amount, ref, created_at, id
          FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND credit_account LIKE 'cash:%'
        UNION ALL
        SELECT substr(debit_account, 6), CASE kind WHEN 'fee' THEN NULL ELSE kind END, -amount_micro, ref, created_at, id
          FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND debit_account LIKE 'cash:%'
      ) x JOIN users u ON u.id::text = x.account
      GROUP BY u.id, x.ref, CASE WHEN x.kind IS NULL OR x.kind IN ('buy', 'sell') THEN 'trade' ELSE x.kind END
      ORDER BY min(x.id)`);
  }
}
