import { scriptOnTree } from '../support/script-tree';

/** `npm run lint` runs scripts/check-money-writes.js: money is written only by src/domain/ledger/ (and the migrations). */
describe('scripts/check-money-writes.js', () => {
  const { write, check, dir: tree } = scriptOnTree('check-money-writes.js', 'check-money-');

  it("when only the ledger module and the migrations write money (a pool's cash too), and others lock or read it, it passes", () => {
    write({
      'domain/ledger/cash.ts': 'export const DEBIT = `UPDATE users s SET balance_micro = s.balance_micro - $2 WHERE s.id = $1`;\n',
      'domain/ledger/shares.ts': 'export const SELL = `UPDATE positions SET quantity_micro = quantity_micro - $2 WHERE id = $1`;\n',
      'db/migrations/1-accounts.ts': "export const UP = 'INSERT INTO transfers (user_id) SELECT id FROM users';\n",
      'domain/trading/trade.ts': [
        "export const LOCK = 'SELECT 1 FROM users WHERE id = $1 FOR UPDATE';",
        "export const REF = 'SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE';",
        "export const POS = 'SELECT * FROM positions p WHERE p.id = $1 FOR UPDATE OF p';",
        "export const SEQ = 'UPDATE users SET event_seq = event_seq + 1 WHERE id = $1 RETURNING balance_micro, reserved_micro';",
        '// A comment may say UPDATE users SET balance_micro = 0: only code writes.',
        "export const READ = 'SELECT balance_micro - reserved_micro FROM users';",
        "export const POOL = 'SELECT cash_micro FROM pool_balances WHERE market_id = $1';",
        "export const CURVE = 'UPDATE community_pools SET volume_micro = volume_micro + $2, trades = trades + 1 WHERE market_id = $1';",
        "export const OPEN = 'INSERT INTO community_pools (market_id, b_micro, subsidy_micro) VALUES ($1, $2, $3)';",
      ].join('\n'),
      'domain/ledger/pool-cash.ts': 'export const ADD = `INSERT INTO pool_balances AS b (market_id, cash_micro) VALUES ($1, $2)`;\n',
    });
    const r = check(tree());
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('money is written only by domain/ledger/ and db/migrations/');
    expect(r.status).toBe(0);
  });

  it("when another file writes the journal, cash, reserved cash, a position or a pool's cash, each write fails it with its place", () => {
    write({
      'domain/community/buy.ts': [
        'export const BUY = `WITH debit AS (UPDATE users SET balance_micro = balance_micro - $2, last_active_at = $3 WHERE id = $1 RETURNING 1)',
        "  INSERT INTO transfers (user_id, type) SELECT $1, 'buy' FROM debit`;",
      ].join('\n'),
      'domain/orders/reserve.ts': "export const R = 'UPDATE users u SET reserved_micro = u.reserved_micro + $2 WHERE u.id = $1';\n",
      'domain/trading/settle.ts': "export const S = 'UPDATE positions SET quantity_micro = 0 WHERE id = $1';\nexport const D = 'DELETE FROM transfers';\n",
      'domain/accounts/open.ts': [
        "export const O = 'INSERT INTO users (id, balance_micro) VALUES ($1, 1000)';",
        "export const C = 'INSERT INTO cash_balances (user_id, balance_micro) VALUES ($1, 1000)';",
      ].join('\n'),
      'domain/community/pool.ts': [
        "export const BOOK = 'UPDATE community_pools SET cash_micro = cash_micro + $2, trades = trades + 1 WHERE market_id = $1';",
        "export const FUND = 'INSERT INTO community_pools (market_id, b_micro, cash_micro) VALUES ($1, $2, $3)';",
        "export const PAY = 'UPDATE pool_balances SET cash_micro = cash_micro - $2 WHERE market_id = $1';",
      ].join('\n'),
    });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('domain/community/buy.ts:1: UPDATE users SET balance_micro outside the ledger module');
    expect(r.stderr).toContain('domain/community/buy.ts:2: INSERT INTO transfers outside the ledger module');
    expect(r.stderr).toContain('domain/orders/reserve.ts:1: UPDATE users SET reserved_micro');
    expect(r.stderr).toContain('domain/trading/settle.ts:1: UPDATE positions');
    expect(r.stderr).toContain('domain/trading/settle.ts:2: DELETE FROM transfers');
    expect(r.stderr).toContain('domain/accounts/open.ts:1: INSERT INTO users (balance_micro)');
    expect(r.stderr).toContain('domain/accounts/open.ts:2: INSERT INTO cash_balances');
    expect(r.stderr).toContain('domain/community/pool.ts:1: UPDATE community_pools SET cash_micro');
    expect(r.stderr).toContain('domain/community/pool.ts:2: INSERT INTO community_pools (cash_micro)');
    expect(r.stderr).toContain('domain/community/pool.ts:3: UPDATE pool_balances');
    expect(r.stderr).toMatch(/10 money writes outside/);
  });

  it("when run on the project's own src/, it passes", () => {
    const r = check('src');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
