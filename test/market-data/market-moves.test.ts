import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { addMirrorMarkets } from '../support/markets';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const HOUR = 3_600_000;
const clock = { now: () => new Date(NOW) };

/** Snapshots of each market's YES token, as [hours before now, price]; every market's current YES price is 0.40 (addMirrorMarkets). */
const SNAPSHOTS: Record<string, Array<[number, number]>> = {
  'mv-a': [[25, 0.3]],
  'mv-b': [
    [23, 0.55],
    [2, 0.45],
  ],
  'mv-c': [],
  'mv-d': [
    [30, 0.38],
    [20, 0.9],
  ],
};
const CURRENT = 0.4;

/** The independent reading of the rule: base = last snapshot at or before 24 h ago, else the first one after. */
function expectedChange(points: Array<[number, number]>): number | null {
  const before = points.filter(([h]) => h >= 24).sort((x, y) => x[0] - y[0])[0];
  const after = points.filter(([h]) => h < 24).sort((x, y) => y[0] - x[0])[0];
  const base = before ?? after;
  return base ? CURRENT - base[1] : null;
}

/** Hour i (24..1) takes the last snapshot at or before it; hour 0 is the current price. */
function expectedSparkline(points: Array<[number, number]>): number[] {
  const line: number[] = [];
  for (let i = 24; i >= 1; i -= 1) {
    const at = points.filter(([h]) => h >= i).sort((x, y) => x[0] - y[0])[0];
    if (at) line.push(at[1]);
  }
  return [...line, CURRENT];
}

type Listed = { id: string; change24h: number | null; sparkline?: number[] };

describe.each(backends())('list_markets moves and sparklines on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false });
    await addMirrorMarkets(
      t.services.db,
      Object.keys(SNAPSHOTS).map((id) => ({ id, question: `Market ${id}?`, volume: 100 })),
      NOW,
    );
    for (const [id, points] of Object.entries(SNAPSHOTS)) {
      for (const [h, p] of points) {
        await t.services.db.query('INSERT INTO price_snapshots (token_id, t, price_micro) VALUES ($1, $2, $3)', [
          `${id}-yes`,
          new Date(NOW - h * HOUR),
          Math.round(p * 1e6),
        ]);
      }
    }
  });
  afterAll(async () => t.close());

  test('when sorted by change24h, the largest move (up or down) comes first, markets without history last, each with its signed change', async () => {
    const res = await t.api.get('/api/markets').query({ sort: 'change24h' });
    expect(res.status).toBe(200);
    const markets = res.body.markets as Listed[];
    // By hand: b moved 0.40 − 0.55 = −0.15, a 0.40 − 0.30 = +0.10, d 0.40 − 0.38 = +0.02, c has no history.
    expect(markets.map((m) => m.id)).toEqual(['mv-b', 'mv-a', 'mv-d', 'mv-c']);
    expect(markets.map((m) => m.change24h)).toEqual([-0.15, 0.1, 0.02, null]);
    for (const m of markets) {
      const want = expectedChange(SNAPSHOTS[m.id]!);
      if (want === null) expect(m.change24h).toBeNull();
      else expect(m.change24h).toBeCloseTo(want, 9);
      expect(m.sparkline).toBeUndefined();
    }
  });

  test('when paged by change24h, the cursor continues the order without repeats', async () => {
    const first = await t.api.get('/api/markets').query({ sort: 'change24h', limit: 2 });
    expect(first.body.markets.map((m: Listed) => m.id)).toEqual(['mv-b', 'mv-a']);
    const second = await t.api.get('/api/markets').query({ sort: 'change24h', limit: 2, cursor: first.body.nextCursor });
    expect(second.status).toBe(200);
    expect(second.body.markets.map((m: Listed) => m.id)).toEqual(['mv-d', 'mv-c']);
    expect(second.body.nextCursor).toBeNull();
  });

  test('when a sparkline is asked for, each market carries its hourly YES prices over 24 h ending with the current one', async () => {
    const res = await t.api.get('/api/markets').query({ sort: 'change24h', sparkline: 'true' });
    const byId = new Map((res.body.markets as Listed[]).map((m) => [m.id, m]));
    // By hand: d is 0.38 for hours 24..21, 0.90 for 20..1, then 0.40 now.
    expect(byId.get('mv-d')!.sparkline).toEqual([...Array(4).fill(0.38), ...Array(20).fill(0.9), 0.4]);
    expect(byId.get('mv-c')!.sparkline).toEqual([0.4]);
    for (const [id, points] of Object.entries(SNAPSHOTS)) expect(byId.get(id)!.sparkline).toEqual(expectedSparkline(points));
  });

  test('when another sort is asked for, each market still carries its change24h', async () => {
    const res = await t.api.get('/api/markets').query({ sort: 'volume' });
    const byId = new Map((res.body.markets as Listed[]).map((m) => [m.id, m.change24h]));
    expect(byId.get('mv-a')).toBeCloseTo(0.1, 9);
    expect(byId.get('mv-c')).toBeNull();
  });
});
