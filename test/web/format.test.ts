import { sharesInput, sharesOf, signedMoney } from '../../web/src/lib/format';

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
});
