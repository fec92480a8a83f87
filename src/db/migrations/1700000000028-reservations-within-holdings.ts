import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger's rule as the database's backstop (issue 32): an account never reserves more cash than it has, a position
 * never reserves more shares than it holds, so available cash and unreserved shares are never negative. The ledger
 * module refuses every debit, sale and reservation that would break them; these constraints make a path that forgot
 * to ask it fail instead of spend held money. NOT VALID: a row that an earlier version left over the line is not
 * rewritten here (auditLedger reports it), while every new write is checked.
 */
export class ReservationsWithinHoldings1700000000028 implements MigrationInterface {
  name = 'ReservationsWithinHoldings1700000000028';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users ADD CONSTRAINT users_reserved_within_balance CHECK (reserved_micro <= balance_micro) NOT VALID');
    await q.query('ALTER TABLE positions ADD CONSTRAINT positions_reserved_within_held CHECK (reserved_micro <= quantity_micro) NOT VALID');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE positions DROP CONSTRAINT positions_reserved_within_held');
    await q.query('ALTER TABLE users DROP CONSTRAINT users_reserved_within_balance');
  }
}
