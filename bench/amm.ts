import 'reflect-metadata';
import type { Pool } from 'pg';
import { benchPool, createDatabase, load, median, round, startServiceProcess, type LoadFigures, type RequestSetup } from './support/harness';
// Loaded for its effect too: pg's int8 parser returns bigint, as in the service, so the domain code reads the same values.
import type { Database, Queryable } from '../src/db/database';
import { poolAnnouncer, rawTransaction } from './support/raw-transaction';
import { CommunityMarketService } from '../src/domain/community/community-market-service';
import { CommunityTradingService } from '../src/domain/community/community-trading-service';
import { SettlementService } from '../src/domain/trading/settlement-service';
import { TradeHooks } from '../src/domain/trading/trade-hooks';
import { trackTrade } from '../src/domain/track-record/track-listener';
import { auditLedger } from '../src/domain/audit/ledger-audit';
import { createLogger } from '../src/logger';
import { benchSetting } from './support/smoke';

/**
 * npm run bench:amm — N agents buying community market shares from the LMSR market maker over REST
 * (buy_community_shares), against the service in its own process on PostgreSQL; in the same run the raw
 * ceiling: the service's own community buy transaction (CommunityTradingService.buy: pool row lock, pool read,
 * the buy statement, the pool's books, the track record; COMMIT) driven straight through pg at the same
 * concurrency, with no HTTP, auth, idempotency or rate limit. Two shapes: every agent on one hot market (the
 * pool row lock serializes them), and agents spread over SPREAD markets. Each figure is the median of RUNS runs;
 * the ledger audit (pools included) runs at the end. Last line: one JSON object with every figure.
 */
const AGENTS = benchSetting('BENCH_AGENTS', 50, 4);
const SECONDS = benchSetting('BENCH_SECONDS', 10, 1);
const RUNS = benchSetting('BENCH_RUNS', 3, 1);
const POOL = Number(process.env.BENCH_POOL ?? 10);
const SPREAD = benchSetting('BENCH_SPREAD_MARKETS', 100, 5);
const AMOUNT = 0.01;

interface Agent {
  id: string;
  key: string;
}

/**
 * The service's Database surface over a pipelined pg pool: the same transaction shape (Database.transaction), nothing
 * else — BEGIN travels with the first statements, and what is issued in one tick goes out in one write.
 */
function rawDatabase(pool: Pool): Database {
  const query = async (sql: string, params?: unknown[], name?: string) => (await pool.query({ name, text: sql, values: params })).rows as never[];
  const announcer = poolAnnouncer(pool);
  const transaction = async <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => {
    const c = await pool.connect();
    try {
      return await rawTransaction(c, announcer, fn);
    } finally {
      c.release();
    }
  };
  return { query, transaction, notify: (channel: string, payload: string) => announcer.announce(channel, payload) } as unknown as Database;
}

async function register(baseUrl: string, name: string): Promise<Agent> {
  const r = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}@example.com`, password: 'password123', displayName: name.slice(0, 20), isAgent: true }),
  });
  const body = (await r.json()) as { user: { id: string; apiKey: string } };
  return { id: body.user.id, key: body.user.apiKey };
}

async function main(): Promise<void> {
  const db = await createDatabase('bench_amm');
  const service = await startServiceProcess({
    DATABASE_URL: db.url,
    DB_POOL_SIZE: String(POOL),
    RATE_LIMIT_REGISTER_PER_MIN: '1000000',
    RATE_LIMIT_API_PER_MIN: '1000000',
    RATE_LIMIT_TRADE_PER_MIN: '1000000',
    RATE_LIMIT_SELL_PER_MIN: '1000000',
  });
  const pool = benchPool(db.url, POOL);
  const rawDb = rawDatabase(pool);
  const hooks = new TradeHooks();
  hooks.on(trackTrade); // the track record, as the service wires it
  const amm = new CommunityTradingService(rawDb, hooks, new SettlementService(rawDb, hooks, createLogger('silent')));
  const community = new CommunityMarketService(rawDb, amm);
  try {
    const agents: Agent[] = [];
    for (let i = 0; i < AGENTS; i += 1) agents.push(await register(service.baseUrl, `ammbench${i}`));
    // Markets are made through the domain service (creating over REST needs a browser session); each creator funds up to 19 of 50.
    const end = new Date(Date.now() + 7 * 86400_000).toISOString();
    const make = async (creator: Agent, i: number, liquidity: number) =>
      community.create(
        creator.id,
        { question: `Bench community market number ${i}?`, category: 'Bench', outcomes: ['Yes', 'No', 'Maybe'], endDate: end, liquidity },
        new Date(),
      );
    const hot = await make(await register(service.baseUrl, 'ammhotmaker'), 0, 1000);
    const spread: string[][] = [];
    let creator = await register(service.baseUrl, 'ammmaker0');
    for (let i = 0; i < SPREAD; i += 1) {
      if (i > 0 && i % 19 === 0) creator = await register(service.baseUrl, `ammmaker${i}`);
      spread.push((await make(creator, i + 1, 50)).outcomeTokens.map((t) => t.tokenId));
    }
    const hotTokens = hot.outcomeTokens.map((t) => t.tokenId);

    let next = 0;
    const agentOf = (ctx: Record<string, unknown>): Agent => {
      if (!ctx.agent) ctx.agent = agents[next++ % agents.length];
      return ctx.agent as Agent;
    };
    let n = 0;
    const tokenFor = (shape: 'hot' | 'spread', i: number) =>
      shape === 'hot' ? hotTokens[i % 3]! : spread[i % spread.length]![Math.floor(i / spread.length) % 3]!;
    const rest =
      (shape: 'hot' | 'spread'): RequestSetup =>
      (ctx) => ({
        method: 'POST',
        path: '/api/user-markets/trade',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${agentOf(ctx).key}` },
        body: JSON.stringify({ tokenId: tokenFor(shape, n++), amount: AMOUNT }),
      });
    {
      const r = rest('hot')({});
      const res = await fetch(`${service.baseUrl}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
      if (!res.ok) throw new Error(`REST community buy failed: ${res.status} ${(await res.text()).slice(0, 300)}`);
    }
    const rawRun = async (shape: 'hot' | 'spread'): Promise<LoadFigures> => {
      const lat: number[] = [];
      let errors = 0;
      const stopAt = Date.now() + SECONDS * 1000;
      let i = 0;
      const worker = async (agent: Agent) => {
        while (Date.now() < stopAt) {
          const started = performance.now();
          try {
            await amm.buy(agent.id, { tokenId: tokenFor(shape, i++), amount: AMOUNT }, new Date());
          } catch (err) {
            if (errors++ === 0) console.error(`raw ${shape} buy failed: ${err instanceof Error ? err.message : String(err)}`);
          }
          lat.push(performance.now() - started);
        }
      };
      await Promise.all(agents.map(worker));
      lat.sort((a, b) => a - b);
      return { rps: (lat.length - errors) / SECONDS, p50: lat[Math.floor(lat.length * 0.5)]!, p99: lat[Math.floor(lat.length * 0.99)]!, non2xx: 0, errors };
    };

    const runs: Record<string, LoadFigures[]> = { rawHot: [], restHot: [], rawSpread: [], restSpread: [] };
    for (let r = 0; r < RUNS; r += 1) {
      runs.rawHot!.push(await rawRun('hot'));
      runs.restHot!.push(await load(service.baseUrl, { connections: AGENTS, seconds: SECONDS, setup: rest('hot') }));
      runs.rawSpread!.push(await rawRun('spread'));
      runs.restSpread!.push(await load(service.baseUrl, { connections: AGENTS, seconds: SECONDS, setup: rest('spread') }));
    }
    const med = (k: string) => ({
      rps: round(median(runs[k]!.map((x) => x.rps)), 1),
      p50: round(median(runs[k]!.map((x) => x.p50))),
      p99: round(median(runs[k]!.map((x) => x.p99))),
      non2xx: runs[k]!.reduce((s, x) => s + x.non2xx + x.errors, 0),
    });
    const fig = { rawHot: med('rawHot'), restHot: med('restHot'), rawSpread: med('rawSpread'), restSpread: med('restSpread') };
    const ratios = { ammToRaw: round(fig.restHot.rps / fig.rawHot.rps, 3), ammSpreadToRaw: round(fig.restSpread.rps / fig.rawSpread.rps, 3) };
    const audit = await auditLedger(rawDb);
    console.log(`agents=${AGENTS} seconds=${SECONDS} runs=${RUNS} (medians) pool=${POOL} spread markets=${SPREAD} amount=${AMOUNT}`);
    const line = (label: string, f: ReturnType<typeof med>) =>
      console.log(`${label.padEnd(28)} ${f.rps} /s  p50 ${f.p50} ms  p99 ${f.p99} ms  non-2xx/errors ${f.non2xx}`);
    line('raw pg, one hot market', fig.rawHot);
    line('REST, one hot market', fig.restHot);
    line(`raw pg, ${SPREAD} markets`, fig.rawSpread);
    line(`REST, ${SPREAD} markets`, fig.restSpread);
    console.log(
      `ratios: hot REST/raw ${ratios.ammToRaw}, spread REST/raw ${ratios.ammSpreadToRaw} (target ≥ 0.6); audit violations ${audit.violations.length} over ${audit.pools} pools`,
    );
    for (const v of audit.violations.slice(0, 5)) console.log(`VIOLATION ${v}`);
    console.log(
      JSON.stringify({
        bench: 'amm',
        agents: AGENTS,
        seconds: SECONDS,
        runs: RUNS,
        spreadMarkets: SPREAD,
        ...fig,
        ratios,
        auditViolations: audit.violations.length,
      }),
    );
    if (audit.violations.length) process.exitCode = 1;
  } finally {
    await pool.end();
    await service.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
