import { pacedCalls, replay } from '../../bench/support/harness';

describe('replay', () => {
  test('hands out the drawn requests in order, round and round', () => {
    const setup = replay([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }]);
    expect([setup({}), setup({}), setup({})]).toEqual([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }, { path: '/a' }]);
  });
});

describe('pacedCalls', () => {
  test('when a run starts, then its warm-up calls go out at the same pace but are not counted', async () => {
    const calls: number[] = [];
    // The warm-up's calls are slow: none of them may reach the figures.
    const f = await pacedCalls({ rate: 200, seconds: 0.25, warmupSeconds: 0.25 }, async (i) => {
      calls.push(i);
      await new Promise((r) => setTimeout(r, i < 50 ? 100 : 0));
    });
    expect(calls).toHaveLength(100);
    expect(f.rps).toBe(50 / 0.25);
    expect(f.p99).toBeLessThan(90);
  });
});
