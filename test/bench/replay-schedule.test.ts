import { schedule } from '../../bench/replay';

describe('bench:replay schedule', () => {
  test('when 1,000 calls are drawn, then each kind gets its share, spread evenly, with the steps between reads and trades', () => {
    const kinds = schedule(1000);
    expect(kinds).toHaveLength(1000);
    const count = (k: string) => kinds.filter((x) => x === k).length;
    // Shares by hand: 20 % search, 20 % odds, 15 % news, 15 % trade, 10 % forecast, 14 % portfolio, 6 % advance.
    expect([count('search'), count('odds'), count('news'), count('trade'), count('forecast'), count('portfolio'), count('advance')]).toEqual([
      200, 200, 150, 150, 100, 140, 60,
    ]);
    // The 60 steps are spread evenly: consecutive ones are 1000/60 ≈ 16.7 calls apart; each of the other six kinds puts
    // its n/60 calls, give or take one, in the gap, and the rounding of those six keeps it within 14..19.
    const at = kinds.flatMap((k, i) => (k === 'advance' ? [i] : []));
    const gaps = at.slice(1).map((x, i) => x - at[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(14);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(19);
    // The first step comes after the agent has read and traded, not before.
    expect(kinds.slice(0, at[0]!)).toEqual(expect.arrayContaining(['search', 'odds', 'trade']));
  });

  test('when the counts do not divide evenly, then the last kind takes the remainder and the total holds', () => {
    expect(schedule(7)).toHaveLength(7);
    expect(schedule(333)).toHaveLength(333);
  });
});
