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

  test('when a list formats many amounts and dates, then it costs a small part of building a formatter per call: each formatter is kept', () => {
    const values = Array.from({ length: 400 }, (_, i) => i * 13.37);
    const isos = values.map((_, i) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString());
    const elapsed = (run: () => void) => {
      const started = performance.now();
      run();
      return performance.now() - started;
    };
    const perCall = () => values.forEach((v, i) => [v.toLocaleString('en-US', USD), new Date(isos[i]!).toLocaleDateString('en-US', DAY)]);
    const viaFormat = () => values.forEach((v, i) => [money(v), date(isos[i]!)]);
    // Both once first: ICU's data loads on the first formatter, whichever it is.
    perCall();
    viaFormat();
    expect(elapsed(viaFormat)).toBeLessThan(elapsed(perCall) / 5);
  });
});
