import { BUY_PARAMS, BUY_STATEMENT, buyParams, buyStatementWith, SELL_STATEMENT, sellParams } from '../../../src/domain/trading/trade-sql';
import type { BuyRowPart } from '../../../src/domain/trading/trade-hooks';

describe('the buy statement and its parts', () => {
  const row = {
    userId: '00000000-0000-0000-0000-000000000001',
    marketId: 'm1',
    tokenId: 'm1-yes',
    amountMicro: 1n,
    quantityMicro: 2n,
    priceMicro: 500_000n,
    outcome: 'YES',
    at: new Date(0),
  };

  test('BUY_PARAMS is the count of parameters buyParams gives, and the statement uses each of them', () => {
    expect(BUY_PARAMS).toBe(buyParams(row).length);
    for (let n = 1; n <= BUY_PARAMS; n += 1) expect(BUY_STATEMENT).toMatch(new RegExp(`\\$${n}(?!\\d)`));
  });

  test("with no part it is the buy statement itself; a part's parameters are numbered after the buy's, in the parts' order", () => {
    expect(buyStatementWith([])).toBe(BUY_STATEMENT);
    const part = (name: string, count: number): BuyRowPart => ({
      set: (first) => `${name} = $${first} + $${first + count - 1}`,
      count,
      returning: [`${name} AS r_${name}`],
      params: () => [],
      after: async () => {},
    });
    const sql = buyStatementWith([part('a', 2), part('b', 3)]);
    expect(sql).toContain(`a = $${BUY_PARAMS + 1} + $${BUY_PARAMS + 2}`);
    expect(sql).toContain(`b = $${BUY_PARAMS + 3} + $${BUY_PARAMS + 5}`);
    expect(sql).toContain('(SELECT r_a FROM debit) AS r_a');
    expect(() => buyStatementWith([{ ...part('c', 1), returning: ['c'] }])).toThrow(/named/);
    // A part whose columns only its own CTEs read (a carried forecast's chain link) reads them back from the update but
    // leaves them out of the answer.
    const own = buyStatementWith([part('a', 1), { ...part('d', 1), answered: false }]);
    expect(own).toMatch(/RETURNING[^)]*d AS r_d/);
    expect(own).toContain('(SELECT r_a FROM debit) AS r_a');
    expect(own).not.toContain('AS r_d,');
    expect(own).not.toContain('SELECT r_d');
  });

  test('sellParams gives exactly the parameters the sell statement uses, each of them', () => {
    const fill = { quantityMicro: 1n, proceedsMicro: 1n, costRemovedMicro: 1n, realizedPnlMicro: 0n, priceMicro: 500_000n, closes: false };
    const params = sellParams({ userId: row.userId, positionId: row.userId, fill, at: row.at, marketId: 'm1', tokenId: 'm1-yes', releaseMicro: 0n });
    expect(Math.max(...[...SELL_STATEMENT.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))).toBe(params.length);
    for (let n = 1; n <= params.length; n += 1) expect(SELL_STATEMENT).toMatch(new RegExp(`\\$${n}(?!\\d)`));
  });
});
