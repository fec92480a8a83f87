import { AppError } from '../errors/app-error';
import { toMicro } from '../domain/money/micro';
import type { Estimate } from '../domain/benchmark/estimate';
import type { SimulatedScenario } from '../domain/replay/replay-runs';
import { callAs, coinFlip, statedMid, type AgentDeps } from '../transports/reference-forecasters';

/**
 * The built-in reference agents of replay (issue 35 item 4): agents of the service's own that play a stepped replay run
 * through the registry with the run's key, as any agent does, so their records are the benchmark's own, scored by the
 * same code as everyone's.
 * - market: each simulated day, states the mid of every open market (the live market reference's forecast, statedMid);
 *   its alpha is 0 within its interval, the check that scoring has not drifted.
 * - coin_flip: each simulated day, states 0.5 on every open market (the live coin flip's forecast, coinFlip).
 * - news_reader: steps the run from news item to news item (advance_replay to next_news); for each item it reads
 *   (list_news) it moves the market's mid in the direction the item's verdict states (newsVerdict), in log-odds, by NEWS_PUSH
 *   (SHARP_NEWS_PUSH when the verdict says "sharply"), and buys NEWS_STAKE dollars of the side the news favours with that forecast attached (when the
 *   buy is refused, it states the forecast alone). It knows only what the words say, never the size of the move.
 * Each play starts its own run with the live key given, ends it and returns its frozen record's figures.
 */
export const REPLAY_AGENTS = ['market', 'coin_flip', 'news_reader'] as const;
export type ReplayAgent = (typeof REPLAY_AGENTS)[number];

/** Log-odds the news-reader moves the mid by: about the mean hidden move of an item told plainly, and of one told "sharply". */
export const NEWS_PUSH = 0.6;
export const SHARP_NEWS_PUSH = 1.25;
/** Dollars the news-reader buys on each item it reads. */
export const NEWS_STAKE = 5;

const DAY_S = 86_400;
const PAGE = 100;
/** The news-reader's forecasts stay in [0.01, 0.99] and carry 6 decimals at most (the forecast schema's rule). */
const FLOOR = 0.01;

export interface ReplayAgentPlay {
  agent: ReplayAgent;
  scenario: SimulatedScenario;
  runId: string;
  /** The run's key: the run's whole record and books stay readable with it (get_benchmark_record, list_forecasts). */
  apiKey: string;
  /** The run's account: its id seeds the record's intervals (venue playback reproduces them with it). */
  accountId: string;
  /** Registry calls the agent made inside the run (reads, forecasts, trades and steps), and how many were refused. */
  calls: number;
  refused: number;
  resolvedMarkets: number;
  /** The frozen record's board figures (get_replay's record.figures). */
  alpha: Estimate;
  brier: Estimate;
}

interface RunView {
  runId: string;
  apiKey?: string;
  accountId: string;
  clock: string;
  endAt: string;
  record?: { resolvedMarkets: number; figures: { alpha: Estimate; brier: Estimate } } | null;
}
interface MarketRow {
  id: string;
  slug: string;
  status: string;
  yesPrice?: number;
  outcomeTokens: Array<{ outcome: string; tokenId: string }>;
}
interface NewsRow {
  id: string;
  marketId: string;
  publishedAt: string;
  headline: string;
  body: string;
}

/** Plays one reference agent over one scenario in a stepped run started with `liveKey`, to the run's end. */
export async function playReplayAgent(deps: AgentDeps, liveKey: string, agent: ReplayAgent, scenario: SimulatedScenario): Promise<ReplayAgentPlay> {
  const started = (await callAs(deps, liveKey, 'start_replay', { seed: scenario.seed, days: scenario.days, mode: 'step' })) as RunView;
  const run = new RunAgent(deps, started.apiKey!, started.runId);
  if (agent === 'news_reader') await run.readNews(started);
  else await run.stateDaily(started, agent);
  await run.call('end_replay', { runId: started.runId });
  const read = (await callAs(deps, liveKey, 'get_replay', { runId: started.runId })) as RunView;
  const record = read.record!;
  return {
    agent,
    scenario,
    runId: started.runId,
    apiKey: started.apiKey!,
    accountId: read.accountId,
    calls: run.calls,
    refused: run.refused,
    resolvedMarkets: record.resolvedMarkets,
    alpha: record.figures.alpha,
    brier: record.figures.brier,
  };
}

/** One agent inside one run: its calls, all with the run's key. */
class RunAgent {
  calls = 0;
  refused = 0;

  constructor(
    private readonly deps: AgentDeps,
    private readonly key: string,
    private readonly runId: string,
  ) {}

  call(name: string, input: Record<string, unknown>): Promise<unknown> {
    this.calls += 1;
    return callAs(this.deps, this.key, name, input);
  }

  /** market and coin_flip: every simulated day from the start, a forecast on every open market, then a day's step. */
  async stateDaily(view: RunView, agent: 'market' | 'coin_flip'): Promise<void> {
    for (let v = view; ;) {
      for (const m of await this.openMarkets()) {
        if (m.yesPrice === undefined) continue;
        const yes = m.outcomeTokens.find((o) => o.outcome === 'YES')!;
        const no = m.outcomeTokens.find((o) => o.outcome === 'NO')!;
        const open = { venue: 'mirrored' as const, id: m.id, slug: m.slug, yesToken: yes.tokenId, noToken: no.tokenId, midMicro: toMicro(m.yesPrice) };
        await this.refusable(() => this.call('submit_forecast', agent === 'market' ? statedMid(open) : coinFlip(open)));
      }
      if (v.clock >= v.endAt) return;
      v = (await this.call('advance_replay', { runId: this.runId, by: DAY_S })) as RunView;
    }
  }

  /** news_reader: acts on the news published so far, then steps to the next item, to the window's end. */
  async readNews(view: RunView): Promise<void> {
    // What was published before the window the prices have taken in already: the reader starts at the window's start.
    let since = view.clock;
    for (let v = view; ;) {
      for (const item of await this.newsSince(since)) await this.actOn(item);
      since = v.clock;
      if (v.clock >= v.endAt) return;
      v = (await this.call('advance_replay', { runId: this.runId, to: 'next_news' })) as RunView;
    }
  }

  private async actOn(item: NewsRow): Promise<void> {
    const read = newsVerdict(item.body);
    if (!read) return;
    const up = read.push > 0;
    const market = (await this.call('get_market_odds', { marketId: item.marketId })) as MarketRow & { odds: { yes: { mid: number | null } } };
    const mid = market.odds.yes.mid;
    if (market.status !== 'active' || mid === null) return;
    const forecast = movedBy(mid, read.push);
    const side = market.outcomeTokens.find((o) => o.outcome === (up ? 'YES' : 'NO'))!;
    const bought = await this.refusable(() =>
      this.call('paper_trade', {
        marketId: market.id,
        marketSlug: market.slug,
        tokenId: side.tokenId,
        outcome: side.outcome,
        amount: NEWS_STAKE,
        probability: forecast,
      }),
    );
    // A refused buy (the balance spent, no price to fill at) records nothing: the forecast is stated alone.
    if (!bought)
      await this.refusable(() => this.call('submit_forecast', { marketId: market.id, probability: forecast, rationale: item.headline.slice(0, 200) }));
  }

  /** A call the service may refuse (a market that closed between the read and the call): counted, and the agent goes on. */
  private async refusable(fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'INTERNAL') throw err;
      this.refused += 1;
      return false;
    }
  }

  /** Every active market, through list_markets' pages. */
  private async openMarkets(): Promise<MarketRow[]> {
    const all: MarketRow[] = [];
    let cursor: string | null | undefined;
    do {
      const page = (await this.call('list_markets', { status: 'active', sort: 'volume', limit: PAGE, ...(cursor ? { cursor } : {}) })) as {
        markets: MarketRow[];
        nextCursor: string | null;
      };
      all.push(...page.markets);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  /** The news published after `since`, oldest first. */
  private async newsSince(since: string): Promise<NewsRow[]> {
    const all: NewsRow[] = [];
    let cursor: string | null | undefined;
    do {
      const page = (await this.call('list_news', { limit: PAGE, since, ...(cursor ? { cursor } : {}) })) as {
        news: NewsRow[];
        nextCursor: string | null;
      };
      all.push(...page.news);
      cursor = page.nextCursor;
    } while (cursor);
    return all.reverse();
  }
}

/**
 * What the news-reader reads in an item's body: the verdict of its closing sentence ("Observers say this [sharply] raises
 * (or cuts) the chances that … resolves YES"), as the log-odds it pushes the mid by; null when the body has no verdict.
 * Only that sentence decides: a story's lead may use the same words about something else ("the regulator raises
 * concerns" is news against YES), and reading a bare "raises" anywhere took such items the wrong way.
 */
export function newsVerdict(body: string): { push: number } | null {
  const verdict = /\bthis (sharply )?(raises|cuts) the chances\b/.exec(body);
  if (!verdict) return null;
  return { push: (verdict[2] === 'raises' ? 1 : -1) * (verdict[1] ? SHARP_NEWS_PUSH : NEWS_PUSH) };
}

/** A probability moved by `logOdds` on the log-odds scale, kept in [FLOOR, 1 − FLOOR] and rounded to 6 decimals. */
export function movedBy(p: number, logOdds: number): number {
  const x = Math.log(p / (1 - p)) + logOdds;
  const q = 1 / (1 + Math.exp(-x));
  return Math.round(Math.min(1 - FLOOR, Math.max(FLOOR, q)) * 1e6) / 1e6;
}
