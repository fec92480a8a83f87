import 'reflect-metadata';
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { benchPool, createDatabase, pacedCalls, round, startServiceProcess } from './support/harness';
import { hashSecret } from '../src/auth/api-keys';
import { appendEvent } from '../src/domain/events/account-events';
import { poolAnnouncer, rawTransaction } from './support/raw-transaction';
import { benchSetting, SMOKE } from './support/smoke';

/**
 * npm run bench:events — SUBSCRIBERS accounts each holding GET /api/events (Server-Sent Events) on the service in its
 * own process on PostgreSQL, while events commit at RATE a second spread evenly over the accounts (one per market per
 * second: every account follows one of RATE markets, and each market's price change fills one order of it). The
 * events are written by the bench, one transaction each, with the service's own appendEvent (seq bump and insert, then
 * the NOTIFY after the commit, many commits' in one statement, as the service sends it: src/db/announcer.ts): the
 * commit instant is then known exactly, and the service's CPU is spent on delivering only (hearing the NOTIFY,
 * reading the log, writing the stream). Prints the commit-to-read latency
 * (p50/p99, read by the client), every event checked delivered once and in order, and the service's CPU (utime +
 * stime of its process, as process.cpuUsage counts it) per 1,000 deliveries, against the same span idle with every
 * stream open. Last line: one JSON object with every figure.
 */
const SUBSCRIBERS = benchSetting('BENCH_SUBSCRIBERS', 1000, 20);
const RATE = benchSetting('BENCH_EVENTS_PER_S', 1000, 50);
const SECONDS = benchSetting('BENCH_SECONDS', 20, 1);
const POOL = Number(process.env.BENCH_POOL ?? 10);
/** The bench's own connections committing events (group commit needs many in flight to reach RATE with fsync on). */
const PRODUCERS = benchSetting('BENCH_PRODUCERS', 40, 4);
/** The idle window (every stream open, heartbeats only) whose CPU is the floor of the loaded figure. */
const IDLE_MS = SMOKE ? 1000 : 5000;

/** CPU seconds (user + system) the process has used, from /proc (the figure process.cpuUsage reports inside it). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

interface Subscriber {
  id: string;
  key: string;
  /** Seqs received, in order, with the instant each was read. */
  got: Array<{ seq: number; at: number }>;
  req?: http.ClientRequest;
}

function subscribe(baseUrl: string, s: Subscriber): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}/api/events`, { headers: { Authorization: `Bearer ${s.key}`, Accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (block.startsWith('id: ')) s.got.push({ seq: Number(block.slice(4, block.indexOf('\n'))), at });
        }
      });
      resolve();
    });
    req.on('error', reject);
    s.req = req;
  });
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const db = await createDatabase('bench_events');
  const service = await startServiceProcess({
    DATABASE_URL: db.url,
    DB_POOL_SIZE: String(POOL),
    RATE_LIMIT_API_PER_MIN: '1000000',
    MARKET_SYNC_INTERVAL_S: '3600',
  });
  const pool = benchPool(db.url, PRODUCERS);
  const subs: Subscriber[] = [];
  try {
    // Accounts straight into the table (registering 1,000 over HTTP would hash 1,000 passwords): a key each.
    for (let i = 0; i < SUBSCRIBERS; i += 1) subs.push({ id: randomUUID(), key: `svc_${randomBytes(16).toString('hex')}`, got: [] });
    for (let i = 0; i < subs.length; i += 500) {
      const batch = subs.slice(i, i + 500);
      await pool.query(
        `INSERT INTO users (id, email, password_hash, display_name, is_agent, referral_code, api_key_hash)
         SELECT id, 'bench-' || id || '@example.com', 'x', 'Bench', true, 'b' || substr(md5(id::text), 1, 12), key
         FROM unnest($1::uuid[], $2::text[]) AS x(id, key)`,
        [batch.map((s) => s.id), batch.map((s) => hashSecret(s.key))],
      );
    }
    const opened = performance.now();
    for (let i = 0; i < subs.length; i += 50) await Promise.all(subs.slice(i, i + 50).map((s) => subscribe(service.baseUrl, s)));
    console.log(`${SUBSCRIBERS} streams open in ${round((performance.now() - opened) / 1000, 1)} s`);

    // Idle: every stream open, nothing happening (heartbeats only).
    await sleep(SMOKE ? 200 : 1000);
    const idleFrom = cpuSeconds(service.child.pid!);
    const idleStart = performance.now();
    await sleep(IDLE_MS);
    const idleCpuPerS = (cpuSeconds(service.child.pid!) - idleFrom) / ((performance.now() - idleStart) / 1000);

    // Loaded: RATE events a second, round-robin over the accounts, each committed in its own transaction.
    const commits = new Map<string, number>();
    const data = { marketId: '512345', tokenId: '7'.repeat(77), side: 'BUY', shares: 18.18, price: 0.55, cash: 10, realizedPnl: 0 };
    const announcer = poolAnnouncer(pool);
    const cpuFrom = cpuSeconds(service.child.pid!);
    const t0 = performance.now();
    const produced = await pacedCalls({ rate: RATE, seconds: SECONDS, warmupSeconds: 0 }, async (i) => {
      const s = subs[i % subs.length]!;
      const c = await pool.connect();
      try {
        const seq = await rawTransaction(c, announcer, (tx) => appendEvent(tx, s.id, 'trade', data, new Date()));
        commits.set(`${s.id}:${seq}`, performance.now());
      } finally {
        c.release();
      }
    });
    const producedIn = (performance.now() - t0) / 1000;
    const total = commits.size;
    // Let the last deliveries arrive (bounded).
    const deadline = performance.now() + 10_000;
    const received = () => subs.reduce((n, s) => n + s.got.length, 0);
    while (received() < total && performance.now() < deadline) await sleep(50);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(service.child.pid!) - cpuFrom;

    const expected = new Map<string, number>();
    for (const key of commits.keys()) expected.set(key.slice(0, 36), (expected.get(key.slice(0, 36)) ?? 0) + 1);
    const lat: number[] = [];
    let missing = 0;
    let outOfOrder = 0;
    let duplicates = 0;
    for (const s of subs) {
      let prev = 0;
      const seen = new Set<number>();
      for (const g of s.got) {
        if (seen.has(g.seq)) duplicates += 1;
        if (g.seq !== prev + 1) outOfOrder += 1;
        seen.add(g.seq);
        prev = g.seq;
        const c = commits.get(`${s.id}:${g.seq}`);
        if (c !== undefined) lat.push(Math.max(0, g.at - c));
      }
      missing += (expected.get(s.id) ?? 0) - seen.size;
    }
    lat.sort((a, b) => a - b);
    const deliveries = received();
    const idleShare = idleCpuPerS * elapsed;
    const figures = {
      bench: 'events',
      subscribers: SUBSCRIBERS,
      eventsPerSecond: RATE,
      seconds: SECONDS,
      produced: total,
      // What the producer reached: the pace is met when this is RATE; its lag (from the scheduled instant) says by how much not.
      committedPerSecond: round(total / producedIn, 1),
      producerLagP99Ms: round(produced.p99),
      deliveries,
      missing,
      duplicates,
      outOfOrder,
      commitToReadMs: { p50: round(pct(lat, 0.5)), p90: round(pct(lat, 0.9)), p99: round(pct(lat, 0.99)), max: round(lat.at(-1) ?? NaN) },
      serviceCpu: {
        seconds: round(cpu),
        perThousandDeliveriesMs: round((cpu / deliveries) * 1e6, 1),
        idlePerSecondMs: round(idleCpuPerS * 1000, 1),
        perThousandDeliveriesAboveIdleMs: round(((cpu - idleShare) / deliveries) * 1e6, 1),
      },
    };
    console.log(
      `events committed ${total} (${figures.committedPerSecond}/s; producer p99 ${figures.producerLagP99Ms} ms behind its schedule), delivered ${deliveries}: missing ${missing}, duplicates ${duplicates}, out of order ${outOfOrder}`,
    );
    console.log(
      `commit → read by the client: p50 ${figures.commitToReadMs.p50} ms  p90 ${figures.commitToReadMs.p90} ms  p99 ${figures.commitToReadMs.p99} ms  max ${figures.commitToReadMs.max} ms`,
    );
    console.log(
      `service CPU: ${figures.serviceCpu.perThousandDeliveriesMs} ms per 1,000 deliveries (${figures.serviceCpu.perThousandDeliveriesAboveIdleMs} ms above idle; idle with ${SUBSCRIBERS} streams open: ${figures.serviceCpu.idlePerSecondMs} ms/s)`,
    );
    console.log(JSON.stringify(figures));
  } finally {
    for (const s of subs) s.req?.destroy();
    await pool.end().catch(() => {});
    await service.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
