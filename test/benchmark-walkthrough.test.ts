import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { backends } from './support/backends';
import { registerAgent, startTestApp, type TestApp } from './support/app';
import { ManualClock } from './support/identity';
import { SimulatedFeed } from '../src/market-data/simulated/simulated-feed';

/**
 * The forecasting-benchmark walkthrough of docs/benchmark.md, run as written: its curl lines are read from the page, split as a
 * shell would, and sent to the service (the simulated venue on a test clock, so the market resolves). Only what the
 * page leaves to the reader is filled in: $BASE, $KEY and the market id.
 */
function curlLines(): string[] {
  const page = readFileSync(join(__dirname, '..', 'docs', 'benchmark.md'), 'utf8');
  const section = page.slice(page.indexOf('## Forecasting benchmark'));
  const block = section.slice(section.indexOf('```sh') + 5, section.indexOf('```', section.indexOf('```sh') + 5));
  return block.split('\n').filter((l) => l.startsWith('curl '));
}

/** Words of a command line as a POSIX shell splits them: single quotes literal, double quotes expand $VARS. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  let cur = '';
  let any = false;
  const expand = (s: string) => s.replace(/\$([A-Z]+)/g, (_, v: string) => vars[v] ?? '');
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur += line.slice(i + 1, end);
      i = end;
      any = true;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      cur += expand(line.slice(i + 1, end));
      i = end;
      any = true;
    } else if (c === ' ') {
      if (any) out.push(cur);
      cur = '';
      any = false;
    } else {
      const m = /^\$[A-Z]+/.exec(line.slice(i));
      if (m) {
        cur += expand(m[0]);
        i += m[0].length - 1;
      } else cur += c;
      any = true;
    }
  }
  if (any) out.push(cur);
  return out;
}

async function run(t: TestApp, line: string, vars: Record<string, string>) {
  const argv = words(line, vars).slice(1);
  let method = 'GET';
  const headers: Record<string, string> = {};
  let body: string | undefined;
  let url = '';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-s') continue;
    if (a === '-X') method = argv[++i]!;
    else if (a === '-H') {
      const [name, ...value] = argv[++i]!.split(':');
      headers[name!.trim()] = value.join(':').trim();
    } else if (a === '-d') body = argv[++i]!;
    else url = a;
  }
  const req = method === 'POST' ? t.api.post(url) : t.api.get(url);
  const res = await req.set(headers).send(body);
  return res;
}

describe.each(backends().slice(0, 1))('the docs/benchmark.md walkthrough on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse('2030-03-01T12:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false, config: { SIM_SPEED: 60 } });
  });
  afterAll(() => t.close());

  test('when an agent states a forecast, its market resolves and it reads its record, the board and the export, then each answers as the page says', async () => {
    const lines = curlLines();
    expect(lines).toHaveLength(4);
    await t.services.marketSync.runOnce();
    const feed = t.services.feed as SimulatedFeed;
    // An open market that will resolve YES, so the page's Brier of 0.09 for a forecast of 0.7 is the answer.
    const open = await t.services.db.query<{ id: string }>(`SELECT id FROM markets WHERE status = 'active' ORDER BY end_date LIMIT 50`);
    const market = open.map((m) => feed.spec(Number(m.id.slice(4)))).find((s) => feed.winnerOf(s) === 'YES')!;
    const agent = await registerAgent(t);
    const vars = { BASE: '', KEY: agent.apiKey };
    const stated = await run(t, lines[0]!.replace('sim-0001', market.id), vars);
    expect(stated.status).toBe(200);

    clock.advance(market.resolveAtMs - clock.now().getTime() + 60_000);
    await t.services.marketSync.runOnce();

    const record = await run(t, lines[1]!, vars);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ userId: agent.id, season: 'all', resolvedMarkets: 1, ranked: false });
    expect(record.body.forecasts.questions).toBe(1);
    expect(record.body.forecasts.brier).toEqual({ value: expect.any(Number), n: 1, low: null, high: null });
    expect(record.body.forecasts.brier.value).toBeCloseTo(0.09, 12);

    const board = await run(t, lines[2]!, vars);
    expect(board.status).toBe(200);
    expect(board.body.you).toMatchObject({ rank: null, resolvedMarkets: 1 });

    const csv = await run(t, lines[3]!, vars);
    expect(csv.status).toBe(200);
    const rows = (csv.body.text as string).trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    // The record's id, then its account, the account's board audience, its sequence, the market (issue 49 item 4).
    expect(rows[1]).toMatch(new RegExp(`^[0-9a-f-]{36},${agent.id},agents,1,${market.id},mirrored,stated,`));
  });
});
