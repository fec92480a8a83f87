import { throughputs } from '../../bench/support/throughputs';

describe('throughputs (the figures bench:ab compares)', () => {
  test('when a bench line holds rps, perS and …PerSecond figures at any depth, then each is found by its path and nothing else is', () => {
    // The shapes of bench:trade's, bench:orders' and bench:benchmark's last lines, cut down.
    const line = {
      bench: 'x',
      runs: 3,
      rest: { rps: 946.1, p99: 12 },
      fills: { perS: 134.8, changeToFillP99Ms: 560.5 },
      paperTrade: { perS: 82.1 },
      folder: { recordsPerSecond: 146.3 },
      ratios: { restToRaw: 0.6 },
      jsonrpc: { rps: null },
    };
    expect(throughputs(line)).toEqual({ 'rest.rps': 946.1, 'fills.perS': 134.8, 'paperTrade.perS': 82.1, 'folder.recordsPerSecond': 146.3 });
  });
});
