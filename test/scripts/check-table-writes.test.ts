import { scriptOnTree } from '../support/script-tree';

/** `npm run lint` runs scripts/check-table-writes.js: each table is written only by its owner, and no rule is cut from a migration. */
describe('scripts/check-table-writes.js', () => {
  const { write, check, dir: tree } = scriptOnTree('check-table-writes.js', 'check-tables-');

  it('when every write is in its table’s owner and others only read or lock, it passes', () => {
    write({
      'domain/trading/trade-records.ts': "export const I = 'INSERT INTO trades (id) VALUES ($1)';\n",
      'domain/ledger/transfers.ts': "export const T = 'INSERT INTO transfers (debit_account) VALUES ($1)';\n",
      'domain/ledger/shares.ts': "export const P = 'UPDATE positions SET quantity_micro = 0 WHERE id = $1';\n",
      'db/migrations/1-trades.ts': "export const UP = 'CREATE TABLE trades (id uuid); UPDATE trades SET id = id';\n",
      'domain/orders/read.ts': [
        "export const R = 'SELECT * FROM trades WHERE user_id = $1';",
        "export const L = 'SELECT 1 FROM positions WHERE id = $1 FOR UPDATE';",
        "export const U = 'INSERT INTO orders (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id';",
        '// A comment may say INSERT INTO trades: only code writes.',
        "export const M = 'Nothing to UPDATE here';",
      ].join('\n'),
    });
    const r = check(tree());
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('each table is written only by its owner');
    expect(r.status).toBe(0);
  });

  it('when a file writes a table it does not own, each write fails it with its place and the owner', () => {
    write({
      'domain/trading/settle.ts': "export const S = `INSERT INTO trades (id) VALUES ($1)`;\nexport const D = 'DELETE FROM transfers';\n",
      'domain/community/pool.ts': "export const P = 'UPDATE ONLY positions SET quantity_micro = 0';\n",
      // The account row is the account module's: the ledger's cash and the track record's figures have rows of their own.
      'domain/ledger/cash.ts': "export const C = 'UPDATE users SET balance_micro = balance_micro - $2 WHERE id = $1';\n",
      'domain/track-record/awards.ts': "export const X = 'UPDATE users SET xp = xp + $2 WHERE id = $1';\n",
      'domain/accounts/open.ts': "export const O = 'INSERT INTO cash_balances (user_id) VALUES ($1)';\n",
    });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('domain/trading/settle.ts:1: INSERT INTO trades outside its owner domain/trading/trade-records.ts');
    expect(r.stderr).toContain('domain/trading/settle.ts:2: DELETE FROM transfers outside its owner domain/ledger/transfers.ts');
    expect(r.stderr).toContain('domain/community/pool.ts:1: UPDATE positions outside its owner domain/ledger/');
    expect(r.stderr).toContain('domain/ledger/cash.ts:1: UPDATE users outside its owner domain/accounts/');
    expect(r.stderr).toContain('domain/track-record/awards.ts:1: UPDATE users outside its owner domain/accounts/');
    expect(r.stderr).toContain('domain/accounts/open.ts:1: INSERT INTO cash_balances outside its owner domain/ledger/');
  });

  it('when a file outside the migrations imports a migration (SQL cut from its text), it fails', () => {
    write({
      'domain/track-record/track-sql.ts':
        "import { TRACK_EVENT_V4 } from '../../db/migrations/1700000000026-track-on-account';\nexport const X = TRACK_EVENT_V4;\n",
      'db/migrations/2-next.ts': "import { A } from './1-first';\nexport const B = A;\n",
    });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('domain/track-record/track-sql.ts:1: imports a migration');
    expect(r.stderr).not.toContain('db/migrations/2-next.ts');
  });

  it('when a migration creates a table no module owns, it fails', () => {
    write({ 'db/migrations/3-orphans.ts': "export const UP = 'CREATE TABLE IF NOT EXISTS orphans (id int)';\n" });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('db/migrations/3-orphans.ts:1: table orphans has no owner');
  });

  it('when code writes a table a migration dropped, it fails; the migrations that made and dropped it need no owner for it', () => {
    write({
      'db/migrations/4-journal.ts': "export const UP = 'CREATE TABLE ledger_entries (id int)'; export const LATER = 'DROP TABLE ledger_entries';\n",
      'domain/ledger/journal.ts': "export const J = 'INSERT INTO ledger_entries (id) VALUES ($1)';\n",
    });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('domain/ledger/journal.ts:1: INSERT INTO ledger_entries, a table dropped by migration 74');
    expect(r.stderr).not.toContain('table ledger_entries has no owner');
  });

  it('the project’s own tree passes', () => {
    const r = check('src');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
