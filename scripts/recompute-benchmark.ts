import { readFileSync } from 'node:fs';
import { BENCHMARK_METRICS, MIN_RESOLVED_MARKETS } from '../src/domain/benchmark/benchmark-record';
import type { ExportedForecast } from '../src/domain/benchmark/benchmark-export';
import type { Estimate } from '../src/domain/benchmark/estimate';
import { scoreForecasts, type ForecastScores, type ResolvedQuestion } from '../src/domain/benchmark/forecast-scores';
import { recordHash, type ForecastRecord } from '../src/domain/forecasts/forecast-rules';

/**
 * Recomputes a season's forecast boards and checks its forecasts' hash chains from the season's export alone
 * (export_benchmark_forecasts, issue 49 item 4): `node dist/scripts/recompute-benchmark.js --url BASE --season S` or
 * `--file export.jsonl --season S`. Prints one JSON object: the chain check, and the alpha, brier and log_score boards
 * per audience, in get_benchmark_leaderboard's shape (rank, userId, resolvedMarkets, figure). The export holds the
 * stated forecasts only, so these three boards are what it can reproduce; clv, sharpe, return and max_drawdown need the
 * trades and equity series, which it does not hold yet.
 */

export type ForecastMetric = 'alpha' | 'brier' | 'log_score';
export const FORECAST_METRICS: readonly ForecastMetric[] = ['alpha', 'brier', 'log_score'];
const AUDIENCES: Record<'all' | 'bots' | 'everyone' | 'reference', ReadonlyArray<ExportedForecast['audience']>> = {
  all: ['people'],
  bots: ['agents'],
  everyone: ['people', 'agents'],
  reference: ['reference'],
};

export interface RecomputedEntry {
  rank: number;
  userId: string;
  resolvedMarkets: number;
  figure: Estimate;
}

const micro = (x: number): number => Math.round(x * 1e6);
/**
 * A figure with its keys in the order the board serves them (the board reads it from a jsonb document, whose keys come
 * shortest first), so this script's boards are the service's byte for byte.
 */
const served = (e: Estimate): Estimate => ({ n: e.n, low: e.low, high: e.high, value: e.value });
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Each account's stated-forecast scores of the season, as its benchmark record scores them (same questions, same seeds). */
export function recomputeRecords(
  rows: readonly ExportedForecast[],
  season: string,
): Map<string, { audience: string; resolvedMarkets: number; scores: ForecastScores }> {
  const byUser = new Map<string, ExportedForecast[]>();
  for (const r of rows) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r]);
  const out = new Map<string, { audience: string; resolvedMarkets: number; scores: ForecastScores }>();
  for (const [userId, mine] of byUser) {
    const questions = new Map<string, ResolvedQuestion>();
    for (const r of [...mine].sort((a, b) => byCodePoint(a.marketId, b.marketId) || a.seq - b.seq)) {
      let q = questions.get(r.marketId);
      if (!q) {
        q = { marketId: r.marketId, kind: r.venue === 'mirrored' ? 'binary' : 'categorical', winner: r.winner, closedAt: Date.parse(r.closedAt), points: [] };
        questions.set(r.marketId, q);
      }
      // The record's points are micro-units over 1e6, as the service reads them from its books.
      q.points.push({
        t: Date.parse(r.createdAt),
        probabilities: r.probabilities.map((p) => micro(p) / 1e6),
        mids: r.mids.map((m) => (m === null ? null : micro(m) / 1e6)),
      });
    }
    const qs = [...questions.values()];
    const resolvedMarkets = qs.filter((q) => q.winner !== null && q.points.some((p) => p.t <= q.closedAt)).length;
    out.set(userId, { audience: mine[0]!.audience, resolvedMarkets, scores: scoreForecasts(qs, `${userId}|${season}|stated`) });
  }
  return out;
}

/** A forecast board as get_benchmark_leaderboard ranks it: from the minimum of markets, best figure first, then more markets, then id. */
export function recomputeBoard(
  records: ReturnType<typeof recomputeRecords>,
  metric: ForecastMetric,
  audience: keyof typeof AUDIENCES,
  limit = 100,
): RecomputedEntry[] {
  const figureOf = (s: ForecastScores): Estimate => (metric === 'alpha' ? s.alpha : metric === 'brier' ? s.brier : s.logScore);
  const low = BENCHMARK_METRICS[metric] === 'asc';
  return [...records]
    .filter(([, r]) => AUDIENCES[audience].includes(r.audience as ExportedForecast['audience']))
    .filter(([, r]) => r.resolvedMarkets >= MIN_RESOLVED_MARKETS && figureOf(r.scores).value !== null)
    .sort(([ua, a], [ub, b]) => {
      const fa = figureOf(a.scores).value!;
      const fb = figureOf(b.scores).value!;
      if (fa !== fb) return fa < fb === low ? -1 : 1;
      return b.resolvedMarkets - a.resolvedMarkets || byCodePoint(ua, ub);
    })
    .slice(0, limit)
    .map(([userId, r], i) => ({ rank: i + 1, userId, resolvedMarkets: r.resolvedMarkets, figure: served(figureOf(r.scores)) }));
}

export type ExportChainCheck = { ok: true; accounts: number; records: number; linked: number } | { ok: false; userId: string; seq: number; reason: string };

/**
 * Checks every exported record's hash against its own content, and each link between records of consecutive seq that
 * are both in the export (prevHash = the previous hash). A record on a market not in the season is not exported, so a
 * gap in seq is a link this export cannot check; `linked` counts the links it did.
 */
export async function verifyExportChain(rows: readonly ExportedForecast[]): Promise<ExportChainCheck> {
  const byUser = new Map<string, ExportedForecast[]>();
  for (const r of rows) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r]);
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
        probabilitiesMicro: r.probabilities.map((p) => BigInt(micro(p))),
        rationale: r.rationale,
        createdAt: new Date(r.createdAt),
        seq: r.seq,
        prevHash: r.prevHash,
        midsMicro: r.mids.map((m) => (m === null ? null : BigInt(micro(m)))),
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

/** Every page of a season's export from a running service. */
export async function fetchExport(base: string, season: string): Promise<ExportedForecast[]> {
  const rows: ExportedForecast[] = [];
  let cursor: string | null = null;
  do {
    const url = new URL('/api/benchmark/forecasts', base);
    url.searchParams.set('season', season);
    url.searchParams.set('limit', '5000');
    if (cursor) url.searchParams.set('cursor', cursor);
    const res = await fetch(url);
    if (!res.ok) throw new Error(`export answered ${res.status}`);
    const page = (await res.json()) as { forecasts: ExportedForecast[]; nextCursor: string | null };
    rows.push(...page.forecasts);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

/** The chain check and every forecast board of every audience, from the export's rows. */
export async function recompute(rows: readonly ExportedForecast[], season: string) {
  const records = recomputeRecords(rows, season);
  const boards: Record<string, RecomputedEntry[]> = {};
  for (const metric of FORECAST_METRICS)
    for (const audience of Object.keys(AUDIENCES) as Array<keyof typeof AUDIENCES>) boards[`${metric}/${audience}`] = recomputeBoard(records, metric, audience);
  return { season, chain: await verifyExportChain(rows), boards };
}

async function main(): Promise<void> {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const season = arg('season') ?? 'all';
  const file = arg('file');
  const url = arg('url');
  if (!file && !url) throw new Error('give --url BASE or --file export.jsonl');
  const rows = file
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as ExportedForecast)
    : await fetchExport(url!, season);
  const out = await recompute(rows, season);
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exitCode = out.chain.ok ? 0 : 1;
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`recompute failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
