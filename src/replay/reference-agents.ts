import { AppError } from '../errors/app-error';
import { toMicro } from '../domain/money/micro';
import type { Estimate } from '../domain/benchmark/estimate';
import type { SimulatedScenario } from '../domain/replay/replay-runs';
import { callAs, coinFlip, statedMid, type AgentDeps } from '../transports/reference-forecasters';
import { NEWS_SOURCES } from '../market-data/simulated/information';
import { ALL_METHODS } from '../methods';
import { maxPageOf } from '../registry/pages';

/**
 * The built-in reference agents of replay (issue 35 item 4): agents of the service's own that play a stepped replay run
 * through the registry with the run's key, as any agent does, so their records are the benchmark's own, scored by the
 * same code as everyone's.
 * - market: each simulated day, states the mid of every open market (the live market reference's forecast, statedMid);
 *   its alpha is 0 within its interval, the check that scoring has not drifted.
 * - coin_flip: each simulated day, states 0.5 on every open market (the live coin flip's forecast, coinFlip).
 * - news_reader: steps the run from news item to news item (advance_replay to next_news); for each item it reads
 *   (list_news) it moves the market's mid by its judgement of the item (newsVerdict: the claim's direction and degree
 *   weighed by the source's published reliability), in log-odds, and buys NEWS_STAKE dollars of the side the news favours with that forecast attached (when the
 *   buy is refused, it states the forecast alone). It knows only what the words say, never the size of the move.
 * - keyword_reader: plays as the news-reader does, but reads an item by a keyword rule (keywordVerdict: the count of
 *   favourable words against unfavourable ones anywhere in the body, NEWS_PUSH either way): the baseline a news-reader
 *   has to beat for its reading to count as judgement rather than parsing (issue 49 item 2).
 * Each play starts its own run with the live key given, ends it and returns its frozen record's figures.
 */
export const REPLAY_AGENTS = ['market', 'coin_flip', 'news_reader', 'keyword_reader'] as const;
export type ReplayAgent = (typeof REPLAY_AGENTS)[number];

/** Log-odds the news-reader moves the mid by: about the mean hidden move of an item told plainly, and of one told "sharply". */
export const NEWS_PUSH = 0.6;
export const SHARP_NEWS_PUSH = 1.25;
/** Dollars the news-reader buys on each item it reads. */
export const NEWS_STAKE = 5;

const DAY_S = 86_400;
/** A list method's largest page as its schema states it (src/registry/pages.ts): the agents read whole lists in as few calls as they may. */
const pageOf = (name: string): number => maxPageOf(ALL_METHODS.find((m) => m.name === name)!)!;
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
  // A published episode starts by its name (so its run joins the suite's board and lists the episode's category).
  const what = scenario.name !== undefined ? { scenario: scenario.name } : { seed: scenario.seed, days: scenario.days };
  const started = (await callAs(deps, liveKey, 'start_replay', { ...what, mode: 'step' })) as RunView;
  const run = new RunAgent(deps, started.apiKey!, started.runId);
  if (agent === 'news_reader' || agent === 'keyword_reader') await run.readNews(started, agent === 'news_reader' ? newsVerdict : keywordVerdict);
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
  async readNews(view: RunView, verdict: (body: string) => { push: number } | null): Promise<void> {
    // What was published before the window the prices have taken in already: the reader starts at the window's start.
    let since = view.clock;
    for (let v = view; ;) {
      for (const item of await this.newsSince(since)) await this.actOn(item, verdict);
      since = v.clock;
      if (v.clock >= v.endAt) return;
      v = (await this.call('advance_replay', { runId: this.runId, to: 'next_news' })) as RunView;
    }
  }

  private async actOn(item: NewsRow, verdict: (body: string) => { push: number } | null): Promise<void> {
    const read = verdict(item.body);
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
      const page = (await this.call('list_markets', { status: 'active', sort: 'volume', limit: pageOf('list_markets'), ...(cursor ? { cursor } : {}) })) as {
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
      const page = (await this.call('list_news', { limit: pageOf('list_news'), since, ...(cursor ? { cursor } : {}) })) as {
        news: NewsRow[];
        nextCursor: string | null;
      };
      all.push(...page.news);
      cursor = page.nextCursor;
    } while (cursor);
    return all.reverse();
  }
}

/** The closing sentence's claim, strongest phrasings first: its direction and degree (1 slight, 2 plain, 3 sharp). */
const CLAIMS: Array<[RegExp, 1 | -1, 1 | 2 | 3]> = [
  [/\bsharply raises the chances\b|\bfar more likely\b/, 1, 3],
  [/\bsharply lowers the chances\b|\bfar less likely\b/, -1, 3],
  [/\bnudge up the chances\b|\ba little more likely\b/, 1, 1],
  [/\bslightly dent the chances\b|\ba little less likely\b/, -1, 1],
  [/\bimproves the chances\b|\bmore likely\b/, 1, 2],
  [/\bhurts the chances\b|\bless likely\b/, -1, 2],
];
/** Log-odds the news-reader moves the mid by for a fully reliable report of each degree. */
export const DEGREE_PUSH: Record<1 | 2 | 3, number> = { 1: 0.35, 2: NEWS_PUSH + 0.15, 3: SHARP_NEWS_PUSH };

/** Every push the news-reader can make (a source's weight times a degree's push), for checking its forecasts. */
export function readerPushes(): number[] {
  return NEWS_SOURCES.flatMap((s) => ([1, 2, 3] as const).map((d) => (2 * s.reliability - 1) * DEGREE_PUSH[d]));
}

/**
 * What the news-reader reads in an item's body, with judgement: the claim of its closing sentence (direction and degree),
 * weighed by its source's published reliability r (NEWS_SOURCES): a report right with probability r is worth (2r − 1)
 * of the move it claims, so a rumour moves the forecast little and the record nearly fully. Mixed reports, and a
 * source it does not know, are no verdict (null). Only the closing sentence decides the direction: a story's lead may
 * use the same words about something else ("the regulator raises concerns" is news against YES).
 */
export function newsVerdict(body: string): { push: number } | null {
  const source = NEWS_SOURCES.find((s) => body.includes(s.name));
  if (!source) return null;
  const closing = body.slice(body.lastIndexOf('. ', body.length - 2) + 1);
  const claim = CLAIMS.find(([re]) => re.test(closing));
  if (!claim) return null;
  return { push: claim[1] * (2 * source.reliability - 1) * DEGREE_PUSH[claim[2]] };
}

/** Words a keyword rule reads as news for YES, and as news against it. */
export const KEYWORDS_FOR =
  /\b(raises?|surg\w*|backs?|backing|boost\w*|strong|progress|support\w*|upgrade\w*|succeed\w*|success\w*|cleared|inflows?|eases?|lifts?|tips?|encourag\w*|confirms?|ahead|momentum)\b/gi;
export const KEYWORDS_AGAINST =
  /\b(cuts?|slump\w*|resist\w*|revolt|injur\w*|poor|outflows?|crack\w*|disappoint\w*|delays?|setbacks?|fades?|cool\w*|stall\w*|balks?|downgrade\w*|denies|concerns?|worrying|behind|suspension|gloomy|weak)\b/gi;

/**
 * The keyword reference's reading of an item: more favourable words than unfavourable ones anywhere in the body pushes the
 * mid up by NEWS_PUSH, fewer pushes it down, a tie is no verdict. It knows no source, no hedge and no size.
 */
export function keywordVerdict(body: string): { push: number } | null {
  const score = (body.match(KEYWORDS_FOR)?.length ?? 0) - (body.match(KEYWORDS_AGAINST)?.length ?? 0);
  return score === 0 ? null : { push: Math.sign(score) * NEWS_PUSH };
}

/** A probability moved by `logOdds` on the log-odds scale, kept in [FLOOR, 1 − FLOOR] and rounded to 6 decimals. */
export function movedBy(p: number, logOdds: number): number {
  const x = Math.log(p / (1 - p)) + logOdds;
  const q = 1 / (1 + Math.exp(-x));
  return Math.round(Math.min(1 - FLOOR, Math.max(FLOOR, q)) * 1e6) / 1e6;
}
