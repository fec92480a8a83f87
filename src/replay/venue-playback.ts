import { MICRO, toMicro, type Micro } from '../domain/money/micro';
import type { Estimate } from '../domain/benchmark/estimate';
import { scoreAlpha, type ResolvedQuestion } from '../domain/benchmark/forecast-scores';
import { alphaAcrossRuns } from '../domain/replay/across-runs';
import { meanWithTInterval } from '../domain/benchmark/statistics';
import { REPLAY_START_MS, type SimulatedScenario } from '../domain/replay/replay-runs';
import { candidateRange, type SimMarketSpec } from '../market-data/simulated/catalog';
import { newsIdOf } from '../market-data/simulated/information';
import { newsText } from '../market-data/simulated/news-text';
import type { SimulatedFeed } from '../market-data/simulated/simulated-feed';
import { scenarioFeed } from '../market-data/simulated/scenario-feed';
import { coinFlip, statedMid } from '../transports/reference-forecasters';
import { keywordVerdict, movedBy, newsVerdict, REPLAY_AGENTS } from './reference-agents';

/**
 * Venue playback (issue 35 item 4): the reference agents played straight from the simulated venue, without a service. A
 * stepped replay run costs about a second a step (its market sync), too slow for the whole of suite-v1 in a test; the
 * venue is a pure function of its seed, its sealed secret and the clock, so what the run's API would show an agent at each of its steps can
 * be read from it directly: the same catalog, prices, news and outcomes (SimulatedFeed with information, as a run builds
 * it). Each agent's forecasts are decided by its own rules (reference-agents.ts: newsVerdict and movedBy; statedMid and
 * coinFlip) at the times it would state them through the API, stamped with the mid the service would stamp (the synced
 * YES price), and scored by the benchmark's own code (scoreAlpha: scoreForecasts' alpha) over the markets the run's
 * record would score: those the agent stated on that resolve inside the window. test/replay/reference-agents.test.ts
 * ties it to real runs (the same forecasts and the same frozen alpha, interval included).
 *
 * What each agent states, as it does in a run:
 * - market / coin_flip: at the window's start and after every simulated day to its end (the end included), on every
 *   market open then, its mid / 0.5;
 * - news_reader: at the time of every news item published after the window's start and up to its end (the run's clock
 *   steps to each in turn), oldest first (ties by the item's id), on the item's market if it is open: its mid moved by
 *   the item's verdict;
 * - keyword_reader: as the news-reader, with the keyword rule's verdict (keywordVerdict);
 * - against_news (playback only): the news-reader pushing the other way, the check that the benchmark also sees
 *   negative skill.
 */
export const PLAYBACK_AGENTS = [...REPLAY_AGENTS, 'against_news'] as const;
export type PlaybackAgent = (typeof PLAYBACK_AGENTS)[number];

const DAY_MS = 86_400_000;

/** One forecast as the run would record it: its market, time, stated P(YES) and stamped YES mid (micro-units). */
export interface PlaybackForecast {
  marketId: string;
  t: number;
  probabilityMicro: Micro;
  midMicro: Micro;
}

export interface PlaybackRun {
  agent: PlaybackAgent;
  scenario: SimulatedScenario;
  /** Every forecast the agent states in the window (on the markets played), in the order it states them. */
  forecasts: PlaybackForecast[];
  /** Resolved, non-void markets it stated on: the record's resolvedMarkets. */
  resolvedMarkets: number;
  /** Questions scored (resolved, not void, forecast before close). */
  questions: number;
  /** The record's alpha (scoreAlpha: scoreForecasts' own, seeded as the run's record is). */
  alpha: Estimate;
}

/** The benchmark's read of a micro amount as a probability (benchmark-inputs.ts reads the books the same way). */
const prob = (m: Micro): number => Number(m) / Number(MICRO);

/** A scenario's venue as a run builds it, and the markets its window sees: played once, for any number of agents. */
export class ScenarioVenue {
  readonly startMs = REPLAY_START_MS;
  readonly endMs: number;
  readonly feed: SimulatedFeed;
  readonly specs: SimMarketSpec[];

  /**
   * `markets: 'scored'` plays only the markets that resolve inside the window, the only ones a record scores: the same
   * figures for half the venue's work (a month-long market's price path costs some 4,000 steps), but not every forecast.
   */
  constructor(
    /** The service's master secret (SIM_SECRET): the scenario's venue is sealed under its scope's secret as a run's is. */
    master: Buffer,
    readonly scenario: SimulatedScenario,
    opts: { markets: 'all' | 'scored' } = { markets: 'all' },
  ) {
    this.endMs = REPLAY_START_MS + scenario.days * DAY_MS;
    // The run's venue: its seed, speed 1, with information, sealed (RunHost.build). Nothing here reads its clock.
    this.feed = scenarioFeed(master, scenario, { now: () => new Date(this.startMs) });
    const alive = aliveIn(this.feed, this.startMs, this.endMs);
    this.specs = opts.markets === 'all' ? alive : alive.filter((s) => s.resolveAtMs <= this.endMs);
  }

  /** The YES mid a sync at `t` stores (what a forecast is stamped with), or null when the market is not open then. */
  yesMid(spec: SimMarketSpec, t: number): Micro | null {
    const market = this.feed.marketAt(spec, t);
    return market && market.status === 'active' ? market.tokens[0]!.priceMicro : null;
  }

  /**
   * Plays one agent. `accountId` seeds the record's intervals as the run's account does (a run's is get_replay's
   * accountId); without it, a label of the agent and scenario: the values and n are the same either way.
   */
  play(agent: PlaybackAgent, accountId?: string): PlaybackRun {
    const { scenario } = this;
    const forecasts =
      agent === 'market' || agent === 'coin_flip'
        ? this.daily(agent)
        : this.onNews(agent === 'against_news' ? -1 : 1, agent === 'keyword_reader' ? keywordVerdict : newsVerdict);
    const questions = resolvedQuestions(this.feed, this.specs, forecasts, this.endMs);
    // The record's label: the account and the season ('all'), then its stated forecasts (scoreRecord).
    const scored = scoreAlpha(questions, `${accountId ?? `playback|${agent}|${scenario.seed}|${scenario.days}`}|all|stated`);
    return {
      agent,
      scenario,
      forecasts,
      resolvedMarkets: questions.filter((q) => q.winner !== null).length,
      questions: scored.questions,
      alpha: scored.alpha,
    };
  }

  /** market and coin_flip: at the start and after every day to the end (the end included), on every open market. */
  private daily(agent: 'market' | 'coin_flip'): PlaybackForecast[] {
    const forecasts: PlaybackForecast[] = [];
    for (let t = this.startMs; ; t = Math.min(this.endMs, t + DAY_MS)) {
      for (const spec of this.specs) {
        const midMicro = this.yesMid(spec, t);
        if (midMicro === null) continue;
        const open = { venue: 'mirrored' as const, id: spec.id, slug: spec.slug, yesToken: spec.yesTokenId, noToken: spec.noTokenId, midMicro };
        const stated = (agent === 'market' ? statedMid(open) : coinFlip(open)) as { probability: number };
        forecasts.push({ marketId: spec.id, t, probabilityMicro: toMicro(stated.probability), midMicro });
      }
      if (t >= this.endMs) return forecasts;
    }
  }

  /** news_reader and keyword_reader (direction 1) and against_news (−1): at each item's time, oldest first, the mid moved by the agent's verdict. */
  private onNews(direction: 1 | -1, verdict: (body: string) => { push: number } | null): PlaybackForecast[] {
    const items = this.specs.flatMap((spec) =>
      this.feed
        .newsEventsOf(spec)
        .filter((e) => e.tMs > this.startMs && e.tMs <= this.endMs)
        .map((event) => ({ spec, event, id: newsIdOf(spec.id, event.j) })),
    );
    items.sort((a, b) => a.event.tMs - b.event.tMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const forecasts: PlaybackForecast[] = [];
    for (const { spec, event } of items) {
      const read = verdict(newsText(spec.question, spec.category, event.kindDraw, event.report).body);
      if (!read) continue;
      const midMicro = this.yesMid(spec, event.tMs);
      if (midMicro === null) continue;
      forecasts.push({ marketId: spec.id, t: event.tMs, probabilityMicro: toMicro(movedBy(prob(midMicro), direction * read.push)), midMicro });
    }
    return forecasts;
  }
}

/** Plays one agent over one scenario (a venue of its own; ScenarioVenue plays several agents on one). */
export function playBack(master: Buffer, agent: PlaybackAgent, scenario: SimulatedScenario, accountId?: string): PlaybackRun {
  return new ScenarioVenue(master, scenario).play(agent, accountId);
}

/** Every market the venue lists (its category's, for an episode) that exists at some moment of the window and has not resolved by its start. */
function aliveIn(feed: SimulatedFeed, startMs: number, endMs: number): SimMarketSpec[] {
  const { from } = candidateRange(feed.params, startMs);
  const { to } = candidateRange(feed.params, endMs);
  const specs: SimMarketSpec[] = [];
  for (let k = from; k <= to; k++) {
    const spec = feed.spec(k);
    if (spec.createdAtMs <= endMs && spec.resolveAtMs > startMs && feed.lists(spec)) specs.push(spec);
  }
  return specs;
}

/**
 * The questions the run's record scores (resolvedMarketsCte): each market the agent stated on that has resolved by the
 * window's end (its last sync), with its winner (1 YES, 0 NO, null VOID), its close (the end date, before its resolution)
 * and the agent's points on it in the order stated.
 */
function resolvedQuestions(feed: SimulatedFeed, specs: readonly SimMarketSpec[], forecasts: readonly PlaybackForecast[], endMs: number): ResolvedQuestion[] {
  const byId = new Map(specs.map((s) => [s.id, s]));
  const questions = new Map<string, ResolvedQuestion>();
  for (const f of forecasts) {
    const spec = byId.get(f.marketId)!;
    if (spec.resolveAtMs > endMs) continue;
    let q = questions.get(f.marketId);
    if (!q) {
      const winner = feed.winnerOf(spec);
      q = {
        marketId: spec.id,
        kind: 'binary',
        winner: winner === 'VOID' ? null : winner === 'YES' ? 1 : 0,
        closedAt: Math.min(spec.endAtMs, spec.resolveAtMs),
        points: [],
      };
      questions.set(f.marketId, q);
    }
    q.points.push({ t: f.t, probabilities: [prob(f.probabilityMicro)], mids: [prob(f.midMicro)] });
  }
  return [...questions.values()];
}

/** One agent over a suite's scenarios: each run, the pooled alpha (clustered by run) and the mean of the runs' alphas. */
export interface PlaybackSuite {
  agent: PlaybackAgent;
  runs: PlaybackRun[];
  /** alphaAcrossRuns: the mean over every scored market of every run, with the clustered bootstrap interval by run. */
  alpha: Estimate;
  /** The suite board's figure: the mean of the runs' alphas with its Student-t interval (n: scenarios). */
  meanAlpha: Estimate;
}

/**
 * Agents over a suite's scenarios, each scenario's venue played once for all of them, on the markets the records score
 * (the runs' forecasts are those on the markets that resolve in their window).
 */
export function playBackSuite<A extends PlaybackAgent>(
  master: Buffer,
  agents: readonly A[],
  scenarios: readonly SimulatedScenario[],
  label: string,
): Record<A, PlaybackSuite> {
  const runs = new Map<A, PlaybackRun[]>(agents.map((a) => [a, []]));
  for (const scenario of scenarios) {
    const venue = new ScenarioVenue(master, scenario, { markets: 'scored' });
    for (const agent of agents) runs.get(agent)!.push(venue.play(agent));
  }
  const out = {} as Record<A, PlaybackSuite>;
  for (const agent of agents) {
    const played = runs.get(agent)!;
    out[agent] = {
      agent,
      runs: played,
      alpha: alphaAcrossRuns(played, `playback|${agent}|${label}`),
      meanAlpha: meanWithTInterval(played.flatMap((r) => (r.alpha.value === null ? [] : [r.alpha.value]))),
    };
  }
  return out;
}
