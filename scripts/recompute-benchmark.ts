import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportedForecast } from '../src/domain/benchmark/benchmark-export';
import type { ExportedEquity, ExportedMarket, ExportedPrice, ExportedTrade } from '../src/domain/benchmark/season-books-export';
import { recordHash, type ForecastRecord } from '../src/domain/forecasts/forecast-rules';
import {
  blockFigure,
  clusterMean,
  compounded,
  dailySharpe,
  deepestDrawdown,
  questionScores,
  returnsOf,
  seedFor,
  type Figure,
  type Point,
} from './recompute-figures';

/**
 * Recomputes every board of a season, and checks its forecasts' hash chains, from the season's export alone
 * (export_benchmark_forecasts and its parts; issue 49 item 4): `node dist/scripts/recompute-benchmark.js --url BASE
 * --season S`, or `--dir DIR --season S` with DIR holding forecasts.jsonl, trades.jsonl, equity.jsonl, markets.jsonl and
 * prices.jsonl (`--file export.jsonl` alone: the forecasts, so the forecast boards only). Prints one JSON object: the
 * chain check, and each metric's board per audience in get_benchmark_leaderboard's shape (rank, userId,
 * resolvedMarkets, figure). Its statistics are its own (recompute-figures.ts), written from docs/benchmark.md: it
 * imports none of the service's scoring modules.
 */

export interface SeasonExport {
  forecasts: ExportedForecast[];
  trades: ExportedTrade[];
  equity: ExportedEquity[];
  markets: ExportedMarket[];
  prices: ExportedPrice[];
}

export type Metric = 'alpha' | 'brier' | 'log_score' | 'clv' | 'sharpe' | 'return' | 'max_drawdown';
export const FORECAST_METRICS: readonly Metric[] = ['alpha', 'brier', 'log_score'];
export const METRICS: readonly Metric[] = ['alpha', 'brier', 'log_score', 'clv', 'sharpe', 'return', 'max_drawdown'];
/** Which way each board ranks: a lower Brier and a shallower drawdown first, a higher figure first on the rest. */
const LOWER_FIRST: ReadonlySet<Metric> = new Set(['brier', 'max_drawdown']);
/** The floor (docs/benchmark.md): resolved markets with a stated forecast before an account is ranked on any board. */
export const FLOOR = 30;
const AUDIENCES: Record<'all' | 'bots' | 'everyone' | 'reference', readonly string[]> = {
  all: ['people'],
  bots: ['agents'],
  everyone: ['people', 'agents'],
  reference: ['reference'],
};

export interface RecomputedEntry {
  rank: number;
  userId: string;
  resolvedMarkets: number;
  figure: Figure;
}

/** An account's figures on every board, and what its floor counts. */
export interface AccountFigures {
  audience: string;
  resolvedMarkets: number;
  figures: Record<Metric, Figure>;
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const groupBy = <T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(key(r));
    if (list) list.push(r);
    else out.set(key(r), [r]);
  }
  return out;
};

/** The stated-forecast figures and the floor's count of one account: its questions in market-id order. */
function forecastFigures(mine: readonly ExportedForecast[], label: string): { resolvedMarkets: number; alpha: Figure; brier: Figure; log: Figure } {
  const questions = groupBy(
    [...mine].sort((a, b) => byCodePoint(a.marketId, b.marketId) || a.seq - b.seq),
    (r) => r.marketId,
  );
  const briers: number[] = [];
  const logs: number[] = [];
  const alphas: number[] = [];
  let resolvedMarkets = 0;
  for (const rows of questions.values()) {
    const first = rows[0]!;
    if (first.winner === null) continue;
    const closedAt = Date.parse(first.closedAt);
    const points: Point[] = rows.map((r) => ({ t: Date.parse(r.createdAt), probabilities: r.probabilities, mids: r.mids }));
    const s = questionScores(first.venue === 'mirrored', first.winner, closedAt, points);
    if (s === null) continue;
    resolvedMarkets++;
    briers.push(s.brier);
    logs.push(s.log);
    if (s.marketBrier !== null) alphas.push(s.marketBrier - s.brier);
  }
  const mean = (xs: number[], name: string) => clusterMean(xs, undefined, xs.length, seedFor(`${label}|stated|${name}`));
  return { resolvedMarkets, alpha: mean(alphas, 'alpha'), brier: mean(briers, 'brier'), log: mean(logs, 'logScore') };
}

/** The price path of each token, oldest first; a token's price at an instant is its last point at or before it. */
function pathReader(prices: readonly ExportedPrice[]): (tokenId: string, at: number) => number | null {
  const paths = new Map<string, Array<{ t: number; price: number }>>();
  for (const [token, rows] of groupBy(prices, (p) => p.tokenId))
    paths.set(
      token,
      rows.map((p) => ({ t: Date.parse(p.t), price: p.price })).sort((a, b) => a.t - b.t),
    );
  return (tokenId, at) => {
    let found: number | null = null;
    for (const p of paths.get(tokenId) ?? []) {
      if (p.t > at) break;
      found = p.price;
    }
    return found;
  };
}

/**
 * Closing-line value at the close: the bought token's price at the close less the fill price, per buy before the close,
 * pooled by market (each market's buys one cluster; markets in id order, a market's buys by time then id).
 */
function clvFigure(
  buys: readonly ExportedTrade[],
  markets: ReadonlyMap<string, ExportedMarket>,
  priceAt: ReturnType<typeof pathReader>,
  label: string,
): Figure {
  const sorted = [...buys].sort((a, b) => byCodePoint(a.marketId, b.marketId) || Date.parse(a.createdAt) - Date.parse(b.createdAt) || byCodePoint(a.id, b.id));
  const sums = new Map<string, { sum: number; count: number }>();
  let n = 0;
  for (const b of sorted) {
    const market = markets.get(b.marketId);
    if (!market) throw new Error(`trade ${b.id}: market ${b.marketId} is not in the export`);
    const at = Date.parse(b.createdAt);
    const close = Date.parse(market.closedAt);
    if (!(at < close)) continue;
    // The venue's own path where it answered for this horizon, else the snapshots (as the service reads them).
    const fromPath = b.venuePath?.atClose;
    const later = fromPath !== undefined ? fromPath : priceAt(b.tokenId, close);
    if (later === null) continue;
    const cluster = sums.get(b.marketId) ?? { sum: 0, count: 0 };
    cluster.sum += later - b.price;
    cluster.count += 1;
    sums.set(b.marketId, cluster);
    n++;
  }
  const clusters = [...sums.values()];
  return clusterMean(
    clusters.map((c) => c.sum),
    clusters.map((c) => c.count),
    n,
    seedFor(`${label}|timing|atClose|mean`),
  );
}

/** Sharpe, return and drawdown from the equity series: the start is the equity before the season, else the first day's. */
function riskFigures(series: readonly ExportedEquity[], label: string): { sharpe: Figure; return: Figure; max_drawdown: Figure } {
  const days = series.filter((e) => e.day !== null).sort((a, b) => byCodePoint(a.day!, b.day!));
  const before = series.find((e) => e.day === null);
  const start = before ? before.equity : (days.shift()?.equity ?? 0);
  const r = returnsOf(start, days);
  return {
    sharpe: blockFigure(r, dailySharpe, seedFor(`${label}|risk|sharpe`)),
    return: blockFigure(r, compounded, seedFor(`${label}|risk|twr`)),
    max_drawdown: blockFigure(r, deepestDrawdown, seedFor(`${label}|risk|max-drawdown`)),
  };
}

/** Every account's figures on every board, from the export's parts. Horizons other than the close are not on a board. */
export function recomputeAccounts(data: SeasonExport, season: string): Map<string, AccountFigures> {
  const markets = new Map(data.markets.map((m) => [m.marketId, m]));
  const priceAt = pathReader(data.prices);
  const forecasts = groupBy(data.forecasts, (r) => r.userId);
  const buys = groupBy(
    data.trades.filter((t) => t.side === 'BUY'),
    (t) => t.userId,
  );
  const equity = groupBy(data.equity, (e) => e.userId);
  const out = new Map<string, AccountFigures>();
  // An account is scored once it stated a forecast or bought on a market of the season; only a stated forecast counts for the floor.
  for (const userId of new Set([...forecasts.keys(), ...buys.keys()])) {
    const label = `${userId}|${season}`;
    const f = forecastFigures(forecasts.get(userId) ?? [], label);
    const audience = (forecasts.get(userId)?.[0] ?? buys.get(userId)?.[0])!.audience;
    out.set(userId, {
      audience,
      resolvedMarkets: f.resolvedMarkets,
      figures: {
        alpha: f.alpha,
        brier: f.brier,
        log_score: f.log,
        clv: clvFigure(buys.get(userId) ?? [], markets, priceAt, label),
        ...riskFigures(equity.get(userId) ?? [], label),
      },
    });
  }
  return out;
}

/** A board: accounts at the floor with a figure, best first, then more resolved markets, then the lower id. */
export function recomputeBoard(
  accounts: ReadonlyMap<string, AccountFigures>,
  metric: Metric,
  audience: keyof typeof AUDIENCES,
  limit = 100,
): RecomputedEntry[] {
  const lowFirst = LOWER_FIRST.has(metric);
  return [...accounts]
    .filter(([, a]) => AUDIENCES[audience].includes(a.audience) && a.resolvedMarkets >= FLOOR && a.figures[metric].value !== null)
    .sort(([ua, a], [ub, b]) => {
      const fa = a.figures[metric].value!;
      const fb = b.figures[metric].value!;
      if (fa !== fb) return fa < fb === lowFirst ? -1 : 1;
      return b.resolvedMarkets - a.resolvedMarkets || byCodePoint(ua, ub);
    })
    .slice(0, limit)
    .map(([userId, a], i) => ({ rank: i + 1, userId, resolvedMarkets: a.resolvedMarkets, figure: a.figures[metric] }));
}

export type ExportChainCheck = { ok: true; accounts: number; records: number; linked: number } | { ok: false; userId: string; seq: number; reason: string };

const micro = (x: number): bigint => BigInt(Math.round(x * 1e6));

/**
 * Checks every exported record's hash against its own content, and each link between records of consecutive seq that
 * are both in the export (prevHash = the previous hash). A record on a market not in the season is not exported, so a
 * gap in seq is a link this export cannot check; `linked` counts the links it did.
 */
export async function verifyExportChain(rows: readonly ExportedForecast[]): Promise<ExportChainCheck> {
  const byUser = groupBy(rows, (r) => r.userId);
  let linked = 0;
  for (const [userId, mine] of byUser) {
    const sorted = [...mine].sort((a, b) => a.seq - b.seq);
    for (let i = 0; i < sorted.length; i++) {
      const r = sorted[i]!;
      const record: ForecastRecord = {
        id: r.id,
        userId: r.userId,
        marketId: r.marketId,
        venue: r.venue,
        source: r.source as ForecastRecord['source'],
        probabilitiesMicro: r.probabilities.map(micro),
        rationale: r.rationale,
        createdAt: new Date(r.createdAt),
        seq: r.seq,
        prevHash: r.prevHash,
        midsMicro: r.mids.map((m) => (m === null ? null : micro(m))),
        hash: r.hash,
      };
      if ((await recordHash(record)) !== r.hash) return { ok: false, userId, seq: r.seq, reason: 'hash does not match the record' };
      if (r.seq === 1 && r.prevHash !== null) return { ok: false, userId, seq: r.seq, reason: 'the first record has a prevHash' };
      const prev = sorted[i - 1];
      if (prev && prev.seq === r.seq - 1) {
        if (r.prevHash !== prev.hash) return { ok: false, userId, seq: r.seq, reason: 'prevHash is not the previous record’s hash' };
        linked++;
      }
    }
  }
  return { ok: true, accounts: byUser.size, records: rows.length, linked };
}

const PARTS = ['forecasts', 'trades', 'equity', 'markets', 'prices'] as const;

/** Every page of every part of a season's export from a running service. */
export async function fetchExport(base: string, season: string): Promise<SeasonExport> {
  const out: SeasonExport = { forecasts: [], trades: [], equity: [], markets: [], prices: [] };
  for (const part of PARTS) {
    let cursor: string | null = null;
    do {
      const url = new URL('/api/benchmark/forecasts', base);
      url.searchParams.set('season', season);
      url.searchParams.set('part', part);
      url.searchParams.set('limit', '100');
      if (cursor) url.searchParams.set('cursor', cursor);
      const res = await fetch(url);
      if (!res.ok) throw new Error(`export (${part}) answered ${res.status}`);
      const page = (await res.json()) as Record<string, unknown> & { nextCursor: string | null };
      (out[part] as unknown[]).push(...(page[part] as unknown[]));
      cursor = page.nextCursor;
    } while (cursor);
  }
  return out;
}

/** The chain check and every board of every audience, from the export's parts. */
export async function recompute(data: SeasonExport, season: string) {
  const accounts = recomputeAccounts(data, season);
  const boards: Record<string, RecomputedEntry[]> = {};
  for (const metric of METRICS)
    for (const audience of Object.keys(AUDIENCES) as Array<keyof typeof AUDIENCES>)
      boards[`${metric}/${audience}`] = recomputeBoard(accounts, metric, audience);
  return { season, chain: await verifyExportChain(data.forecasts), boards };
}

const jsonLines = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

async function main(): Promise<void> {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const season = arg('season') ?? 'all';
  const [file, dir, url] = [arg('file'), arg('dir'), arg('url')];
  if (!file && !dir && !url) throw new Error('give --url BASE, --dir DIR or --file export.jsonl');
  let data: SeasonExport;
  if (url) data = await fetchExport(url, season);
  else if (dir) {
    data = { forecasts: [], trades: [], equity: [], markets: [], prices: [] };
    for (const part of PARTS) {
      const path = join(dir, `${part}.jsonl`);
      if (existsSync(path)) (data[part] as unknown[]) = jsonLines(path);
    }
  } else data = { forecasts: jsonLines<ExportedForecast>(file!), trades: [], equity: [], markets: [], prices: [] };
  const out = await recompute(data, season);
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exitCode = out.chain.ok ? 0 : 1;
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`recompute failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
