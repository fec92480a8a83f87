import { scriptOnTree } from '../support/script-tree';

/** `npm run lint` runs scripts/check-clones.js: more clones than allowed, or a clone in the money paths, fails it. */
describe('scripts/check-clones.js', () => {
  const { write, check, dir: tree } = scriptOnTree('check-clones.js', 'check-clones-');

  /** A function of some 90 tokens over 11 lines: a clone when two files hold it. */
  const body = (name: string) => `export function ${name}(rows: Array<{ amount: number; fee: number; kind: string }>): number {
  let total = 0;
  for (const row of rows) {
    if (row.kind === 'buy') total -= row.amount + row.fee;
    else if (row.kind === 'sell') total += row.amount - row.fee;
    else if (row.kind === 'fund') total -= row.amount;
    else throw new Error('unknown kind ' + row.kind);
  }
  if (total < -1000000) throw new Error('too low: ' + total);
  return Math.round(total * 100) / 100;
}
`;
  /** A debit and its journal entry as one statement; `type` is its ledger type. */
  const debit = (fn: string, type: string) => `export const ${fn} = (tx: { query(sql: string, p: unknown[]): Promise<unknown> }, p: unknown[]) =>
  tx.query(
    \`WITH debit AS (
       UPDATE users SET balance_micro = balance_micro - $2, last_active_at = $3
       WHERE id = $1 AND balance_micro - reserved_micro >= $2 RETURNING balance_micro
     ), entry AS (
       INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at)
       SELECT $1, '${type}', -$2::bigint, $4::text, $3 FROM debit
     )
     SELECT balance_micro FROM debit\`,
    p,
  );
`;

  it('when no code is repeated, it passes even with no clone allowed', () => {
    write({
      'http/app.ts': body('tally'),
      'domain/trading/buy.ts': debit('buy', 'buy'),
      'domain/trading/other.ts': 'export const other = (a: number, b: number) => a * b + 1;\n',
    });
    const r = check(tree(), '--max', '0', '--max-money', '0');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(': 3 files, 0 clones (0 in code, 0 in SQL; at most 0), 0 in the money and trade paths (at most 0)');
    expect(r.status).toBe(0);
  });

  it('when a function is copied outside the money paths, it fails above the allowed count and passes within it', () => {
    write({ 'http/a.ts': body('tallyA'), 'methods/b.ts': body('tallyB') });
    const over = check(tree(), '--max', '0', '--max-money', '0');
    expect(over.status).toBe(1);
    expect(over.stderr).toContain('1 clones (1 in code, 0 in SQL; at most 0), 0 in the money and trade paths');
    expect(over.stderr).toMatch(/clone: http\/a\.ts:\d+-\d+ = methods\/b\.ts:\d+-\d+ \(code, \d+ lines\)/);
    expect(over.stderr).toContain('1 clones where at most 0 are allowed');
    const within = check(tree(), '--max', '1', '--max-money', '0');
    expect(within.stderr).toBe('');
    expect(within.status).toBe(0);
  });

  it('when a copy sits in a money path, any clone there fails it, whatever the count allowed over src/', () => {
    write({ 'domain/community/pool.ts': body('poolTally'), 'methods/b.ts': body('tallyB') });
    const r = check(tree(), '--max', '10', '--max-money', '0');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/money\/trade clone: domain\/community\/pool\.ts:\d+-\d+ = methods\/b\.ts:\d+-\d+ \(code/);
    expect(r.stderr).toContain('1 clones in the money and trade paths where at most 0 are allowed');
  });

  it('when a SQL statement is copied into another service with only its ledger type changed, the SQL scan finds it', () => {
    write({ 'domain/trading/buy.ts': debit('buy', 'buy'), 'domain/community/fund.ts': debit('fund', 'pool') });
    const r = check(tree(), '--max', '10', '--max-money', '0');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('1 clones (0 in code, 1 in SQL; at most 10), 1 in the money and trade paths (at most 0)');
    expect(r.stderr).toMatch(/money\/trade clone: domain\/community\/fund\.ts:\d+-\d+ = domain\/trading\/buy\.ts:\d+-\d+ \(SQL/);
  });

  it('migrations are history and are not scanned', () => {
    write({ 'db/migrations/1-a.ts': body('up1'), 'db/migrations/2-b.ts': body('up2') });
    const r = check(tree(), '--max', '0', '--max-money', '0');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(': 0 files, 0 clones');
    expect(r.status).toBe(0);
  });

  it('src/ itself is within the committed limits, in seconds', () => {
    const started = Date.now();
    const r = check('src');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^src: \d+ files, \d+ clones \(\d+ in code, \d+ in SQL; at most \d+\), \d+ in the money and trade paths \(at most \d+\)$/m);
    expect(r.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
