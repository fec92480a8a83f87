import { date, dateTime, money, shares, sharesInput, sharesOf, signedMoney } from '../../web/src/lib/format';

describe("the web app's number formats (web/src/lib/format.ts)", () => {
  test('when a signed amount rounds to zero cents, then it has no sign: never −$0.00', () => {
    expect(signedMoney(-0.001)).toBe('$0.00');
    expect(signedMoney(0.004)).toBe('$0.00');
    expect(signedMoney(-0)).toBe('$0.00');
    expect(signedMoney(-0.005)).toBe('−$0.01');
    expect(signedMoney(1.2)).toBe('+$1.20');
    expect(signedMoney(-1234.5)).toBe('−$1,234.50');
  });

  test('when shares are counted, then one is "1 share" and any other count is plural', () => {
    expect(sharesOf(1)).toBe('1 share');
    expect(sharesOf(1, 'YES')).toBe('1 YES share');
    expect(sharesOf(2)).toBe('2 shares');
    expect(sharesOf(1.5)).toBe('1.5 shares');
    expect(sharesOf(0.99999)).toBe('1 share');
  });

  test('when a share count starts a form field, then it has at most 2 decimals', () => {
    expect(sharesInput(16.129032)).toBe('16.13');
    expect(sharesInput(5)).toBe('5');
  });

  const USD = { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 } as const;
  const DAY = { year: 'numeric', month: 'short', day: 'numeric' } as const;

  test('when amounts, share counts and dates are formatted, then the text is what toLocaleString writes', () => {
    for (const v of [0, 0.004, 1.2, -1234.5, 1_000_000.005, Number.NaN]) expect(money(v)).toBe(v.toLocaleString('en-US', USD));
    for (const q of [1, 2.5, 0.99999, 12_345.678_91]) expect(shares(q)).toBe(q.toLocaleString('en-US', { maximumFractionDigits: 4 }));
    for (const iso of ['2026-11-28T14:05:00.000Z', '2027-01-01', 'not a date']) {
      expect(date(iso)).toBe(new Date(iso).toLocaleDateString('en-US', DAY));
      expect(dateTime(iso)).toBe(new Date(iso).toLocaleString('en-US', { ...DAY, hour: '2-digit', minute: '2-digit' }));
    }
    expect(money(null)).toBe('—');
    expect(date(undefined)).toBe('—');
  });

  test('when a list formats many amounts and dates, then no call builds a formatter of its own: each formatter is kept', () => {
    // toLocaleString with options builds an Intl formatter on every call (ECMA-402), which a cold home load paid ~120 ms
    // for; the kept formatters never call it. (Counted, not timed: a timing would say more about the machine's load.)
    const numbers = jest.spyOn(Number.prototype, 'toLocaleString');
    const dates = jest.spyOn(Date.prototype, 'toLocaleDateString');
    const times = jest.spyOn(Date.prototype, 'toLocaleString');
    try {
      for (let i = 0; i < 400; i++) {
        money(i * 13.37);
        shares(i / 7);
        date(new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString());
        dateTime(new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString());
      }
      expect([numbers.mock.calls.length, dates.mock.calls.length, times.mock.calls.length]).toEqual([0, 0, 0]);
    } finally {
      numbers.mockRestore();
      dates.mockRestore();
      times.mockRestore();
    }
  });
});
