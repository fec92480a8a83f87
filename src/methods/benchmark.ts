import { z } from 'zod';
import { defineMethod } from '../registry/method';
import type { MethodContext } from '../registry/context';
import { AppError } from '../errors/app-error';
import { ALL_SEASONS, isProvisional, parseSeason } from '../domain/benchmark/seasons';
import { BENCHMARK_METRICS, MIN_RESOLVED_MARKETS, SCORING_VERSION, type BenchmarkMetric } from '../domain/benchmark/benchmark-record';
import { Probability } from './common-schemas';
import { formatExport, formatRows } from '../domain/benchmark/benchmark-export';
import {
  BOOKS_CSV_COLUMNS,
  type BooksPart,
  type ExportedEquity,
  type ExportedMarket,
  type ExportedPrice,
  type ExportedTrade,
} from '../domain/benchmark/season-books-export';

const SeasonText = z.string().min(3).max(7).optional().describe(`YYYY-MM (the UTC month markets resolved in) or ${ALL_SEASONS}; omit for the current month.`);

/**
 * A figure with its n and 95 % interval (percentile bootstrap, resampling whole markets, or blocks of days for risk).
 * Its fields are described tersely: it appears some sixty times in a record, and every surface's schema repeats it.
 */
export const Estimate = z.object({
  value: z.number().nullable().describe('The figure (null: nothing to score).'),
  n: z.number().int().min(0).describe('Observations behind it.'),
  low: z.number().nullable().describe('95 % interval, low end (null: under two markets or days).'),
  high: z.number().nullable().describe('95 % interval, high end.'),
});

const ReliabilityBin = z.object({
  binLow: Probability.describe('Lower edge of the forecast bin (inclusive).'),
  binHigh: Probability.describe('Upper edge (exclusive; the last bin includes 1).'),
  n: z.number().int().min(1).describe('Forecast/outcome pairs in the bin.'),
  meanForecast: Probability.describe('Mean forecast of the bin.'),
  observedFrequency: Probability.describe('Share of its pairs whose outcome happened.'),
  low: Probability.describe('95 % Wilson interval of the observed frequency, lower end.'),
  high: Probability.describe('Upper end.'),
});

const ForecastScores = z
  .object({
    questions: z.number().int().min(0).describe('Resolved (non-void) markets with a stated forecast, scored.'),
    voided: z.number().int().min(0).describe('Markets with a stated forecast that resolved VOID: not scored.'),
    unforecast: z.number().int().min(0).describe('Resolved markets whose forecasts all came after the close: not scored.'),
    forecasts: z.number().int().min(0).describe('Forecasts used (each one replaces the previous on its market).'),
    marketQuestions: z.number().int().min(0).describe('Scored markets where the market’s mid was known at every forecast (the n of market scores and alpha).'),
    brier: Estimate.describe('Brier score of the final forecast, ½ Σ (p_i − o_i)² (a binary market: (p − o)²); lower is better.'),
    logScore: Estimate.describe('Log score of the final forecast, ln p(outcome), p floored at 0.001; higher is better.'),
    brierTimeAveraged: Estimate.describe('Brier of every forecast weighted by how long it stood before the close.'),
    logScoreTimeAveraged: Estimate.describe('Log score, time-averaged likewise.'),
    marketBrier: Estimate.describe('The market’s Brier at the same instants: its stamped mid taken as the forecast.'),
    marketLogScore: Estimate.describe('The market’s log score at the same instants.'),
    marketBrierTimeAveraged: Estimate.describe('The market’s time-averaged Brier.'),
    marketLogScoreTimeAveraged: Estimate.describe('The market’s time-averaged log score.'),
    alpha: Estimate.describe('Market Brier − your Brier on the final forecasts: above 0 is better than the market.'),
    alphaTimeAveraged: Estimate.describe('The same on the time averages.'),
    murphy: z
      .object({
        reliability: Estimate.describe('Murphy reliability (calibration term): Σ n_k (f̄_k − ō_k)² / N over 10 bins; lower is better.'),
        resolution: Estimate.describe('Murphy resolution: Σ n_k (ō_k − ō)² / N; higher is better.'),
        uncertainty: Estimate.describe('Murphy uncertainty ō(1 − ō): the questions’ own difficulty.'),
        pairs: z.number().int().min(0).describe('Forecast/outcome pairs (one per binary market, one per outcome of a community market).'),
      })
      .describe('Murphy decomposition of the final forecasts: Brier = reliability − resolution + uncertainty (+ within-bin terms).'),
    calibrationError: Estimate.describe('Expected calibration error Σ (n_k/N) |f̄_k − ō_k| over 10 bins.'),
    reliabilityTable: z.array(ReliabilityBin).describe('The reliability diagram: per non-empty bin, mean forecast against observed frequency.'),
  })
  .describe('Scores of your stated forecasts (submit_forecast, or forecast on a trade) on markets resolved in the season.');

const LifeScores = z
  .object({
    questions: z.number().int().min(0).describe('Markets scored.'),
    baseline: Estimate.describe('100 (ln p(outcome) − ln 1/K) / ln K: against the uninformed prior, averaged from your first forecast to the close.'),
    peer: Estimate.describe('100 (ln p(outcome) − mean ln p_j): against every other forecaster holding one at that moment, averaged likewise.'),
    coverage: Estimate.describe('Share of the market’s forecast life your forecasts covered.'),
    peerQuestions: z.number().int().min(0).describe('Markets with another forecaster.'),
    horizons: z
      .array(
        z.object({
          horizon: z.enum(['7d', '1d', '1h']).describe('Before the close.'),
          hoursBeforeClose: z.number().describe('In hours.'),
          alpha: Estimate.describe('Market Brier − yours at that time.'),
        }),
      )
      .describe('Alpha at fixed horizons before the close.'),
  })
  .describe("Metaculus-style scores over each market's life (docs/scoring.md).");

const RankingScores = z
  .object({
    replicates: z.number().int().describe('Paired bootstrap replicates (1,999).'),
    references: z
      .array(
        z.object({
          reference: z.enum(['market', 'coin_flip', 'favourite']).describe('The reference forecaster.'),
          edge: Estimate.describe('Its Brier − yours on the markets both forecast.'),
          pValue: z.number().nullable().describe('One-sided p of no edge, uncorrected.'),
        }),
      )
      .describe('Paired against each reference.'),
    shrunkAlpha: z.number().nullable().describe('Σ alpha / max(30, n).'),
    minimumDetectableEdge: z.number().nullable().describe('Smallest alpha n can detect (power 80 %, α 5 %).'),
    days: z.number().min(0).describe('Days from the first scored forecast to the last close.'),
    provisional: z.boolean().describe('Under 100 resolved markets or 30 days.'),
  })
  .describe('What the boards rank by beside the figure (docs/scoring.md).');

const Horizon = z.object({
  mean: Estimate.describe('Mean closing-line value: the bought token’s later price − the fill price.'),
  stakeWeighted: Estimate.describe('Σ cost × value / Σ cost.'),
  positiveShare: Estimate.describe('Share of buys whose token’s price rose after the fill.'),
});

const RiskScores = z
  .object({
    days: z.number().int().min(0).describe('Daily returns in the season (days with an equity snapshot after the first).'),
    timeWeightedReturn: Estimate.describe('Π (1 + r_d) − 1 with r_d = (E_d − F_d)/E_(d−1) − 1: grants and rewards F are flows, not returns.'),
    maxDrawdown: Estimate.describe('Largest fall from a peak of the flow-free equity index, as a fraction (0.25 = 25 %).'),
    currentDrawdown: Estimate.describe('Fall from the peak to the last day.'),
    volatility: Estimate.describe('Sample standard deviation of daily returns.'),
    sharpe: Estimate.describe('Mean / sd of daily returns (risk-free 0; not annualised).'),
    sharpeAnnualised: Estimate.describe('Daily Sharpe × √365.'),
    sortino: Estimate.describe('Mean / downside deviation √(mean(min(r, 0)²)).'),
    probabilisticSharpe: Estimate.describe('Probability that the true Sharpe is above 0 (Bailey and López de Prado, 2012); no interval.'),
    exposure: z.number().nullable().describe('Open positions’ value / equity, now (current season and all-time only).'),
    concentration: z.number().nullable().describe('Largest open position’s value / equity, now.'),
    kellyRatio: Estimate.describe('Mean of stake / Kelly stake over buys with a stated forecast and an edge; 1 is full Kelly.'),
    overKellyShare: Estimate.describe('Share of those buys staked above full Kelly.'),
    negativeEdgeBuys: z.number().int().min(0).describe('Buys priced above your own stated forecast (no edge by your own belief).'),
  })
  .describe('Risk, from the account’s daily equity (hourly snapshots, the last of each UTC day).');

const TimingScores = z
  .object({
    buys: z.number().int().min(0).describe('Buys on markets resolved in the season.'),
    h1: Horizon.describe('One hour after the fill (buys at least an hour before the close).'),
    h24: Horizon.describe('24 hours after the fill.'),
    close: Horizon.describe('At the market’s close: the closing-line value proper.'),
  })
  .describe('Timing: whether the price moved your way after you bought (closing-line value), signed by the side bought.');

const EntryPrice = z
  .object({
    basis: z.literal('entry price').describe('Labels these scores: the price paid taken as the forecast (what get_agent_reputation scores).'),
    questions: z.number().int().min(0).describe('Resolved markets you bought in without stating a forecast.'),
    brier: Estimate.describe('Brier of the entry price as the forecast.'),
    logScore: Estimate.describe('Log score of the entry price as the forecast.'),
  })
  .describe('Trades without a stated forecast, scored as before: at the price paid, labelled as such.');

const Reference = z.enum(['market', 'coin_flip', 'favourite']);

const Provisional = z
  .boolean()
  .describe('True until the season closes (the end of its month; all is always provisional): its figures and ranks may still change.');

/** The season a call names, checked, and whether it is still provisional at the call's instant. */
function seasonAsked(ctx: MethodContext, text: string | undefined): { season: string; provisional: boolean } {
  const now = ctx.clock.now();
  const season = parseSeason(text, now);
  return { season, provisional: isProvisional(season, now) };
}

const Record = z.object({
  scoringVersion: z.string().describe('The scoring rules applied (docs/scoring.md).'),
  userId: z.string().describe('The account.'),
  displayName: z.string().describe('Name.'),
  isAgent: z.boolean().describe('True for an agent account.'),
  reference: Reference.nullable().describe('Which reference forecaster this is (the service’s own baselines), or null.'),
  season: z.string().describe('The season scored: YYYY-MM or all.'),
  provisional: Provisional,
  computedAt: z.iso.datetime().nullable().describe('When it was scored (after each market sync); null when nothing of the account has been scored.'),
  resolvedMarkets: z
    .number()
    .int()
    .min(0)
    .describe(
      'Resolved, non-void markets you stated a forecast on (before their close) this season: what the boards’ minimum counts; plain buys do not count.',
    ),
  minimumMarkets: z.number().int().min(1).describe('Resolved markets needed to be ranked on a benchmark board.'),
  ranked: z.boolean().describe('True when resolvedMarkets reaches minimumMarkets.'),
  forecasts: ForecastScores,
  life: LifeScores,
  ranking: RankingScores,
  byCategory: z
    .array(
      z.object({
        category: z.string().describe('The market category.'),
        questions: z.number().int().min(0).describe('Scored markets of the category.'),
        brier: Estimate.describe('Brier of the final forecasts in the category.'),
        logScore: Estimate.describe('Log score in the category.'),
        alpha: Estimate.describe('Market Brier − yours in the category.'),
      }),
    )
    .describe('The stated-forecast scores per market category, most markets first.'),
  entryPrice: EntryPrice,
  risk: RiskScores,
  timing: TimingScores,
});

const METRICS = Object.keys(BENCHMARK_METRICS) as [BenchmarkMetric, ...BenchmarkMetric[]];
const Audience = z.enum(['all', 'bots', 'everyone', 'reference']);

export const getBenchmarkRecord = defineMethod({
  name: 'get_benchmark_record',
  toolset: 'benchmark',
  defaultTool: true,
  area: 'Forecasting',
  summary: "Read an account's forecasting benchmark record: Brier, log score, alpha, calibration, risk, timing, each with n and an interval",
  brief:
    "An account's forecasting benchmark for a season (YYYY-MM or all): Brier, log score, alpha vs the market, calibration, risk (return, drawdown, Sharpe, Kelly) and timing (closing-line value), each with n and a 95 % interval. Omit userId for yours. Free.",
  description: `The forecasting benchmark record of an account for a season (YYYY-MM by resolution month, or all): scores of its stated forecasts (Brier, log score, time-averaged, the market's, alpha = market Brier − yours, Murphy decomposition, calibration), trades without a forecast scored at the entry price, risk from daily equity (return, drawdown, volatility, Sharpe, Sortino, Kelly) and timing (closing-line value). Every figure carries n and a 95 % interval. A board ranks an account from ${MIN_RESOLVED_MARKETS} resolved markets. Omit userId for your own. Free. Errors: VALIDATION_ERROR (400); NOT_FOUND (404).`,
  auth: 'optional',
  limit: 'api',
  input: z.object({
    userId: z.string().min(1).max(100).optional().describe('The account to read (as get_trader_stats takes it); omit for your own.'),
    season: SeasonText,
  }),
  output: Record,
  rest: { method: 'GET', path: '/api/benchmark/record' },
  annotations: { title: 'Benchmark record', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND', 'SESSION_REQUIRED'],
  handler: async (ctx, input) => {
    const userId = input.userId ?? ctx.principal?.userId;
    if (!userId) {
      throw new AppError('SESSION_REQUIRED', 'Without userId this reads your own record, which needs your API key or a session.', {
        hint: 'Pass userId to read any account’s public record.',
      });
    }
    const { season, provisional } = seasonAsked(ctx, input.season);
    return { ...(await ctx.services.benchmark.record(userId, season)), provisional };
  },
});

export const getBenchmarkLeaderboard = defineMethod({
  name: 'get_benchmark_leaderboard',
  toolset: 'benchmark',
  area: 'Forecasting',
  summary: 'The forecasting benchmark board of a season by one metric, with intervals, n and your rank',
  brief:
    'Ranks accounts of a season by a benchmark metric (alpha, brier, log_score, clv, sharpe, return, max_drawdown), each figure with n and a 95 % interval, for people, bots, everyone or the reference forecasters; you is your place. Free.',
  description: `Ranks accounts of a season (YYYY-MM or all) by a benchmark metric: alpha (market Brier − yours), brier, log_score, clv (closing-line value), sharpe, return or max_drawdown, from ${MIN_RESOLVED_MARKETS} resolved markets. audience all (people), bots, everyone, or reference (the service's reference forecasters). Each figure has its n and 95 % interval; you is your own place. Pass nextCursor as cursor for the next page. Free. Errors: VALIDATION_ERROR (400).`,
  auth: 'optional',
  limit: 'api',
  input: z.object({
    season: SeasonText,
    metric: z.enum(METRICS).default('alpha').describe('The metric ranked (default alpha).'),
    audience: Audience.default('everyone').describe('all = people, bots = agents, everyone = both (default), reference = the reference forecasters.'),
    limit: z.number().int().min(1).max(100).default(50).describe('Entries.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page (same season, metric, audience); omit for the first.'),
  }),
  output: z.object({
    season: z.string().describe('The season ranked.'),
    provisional: Provisional,
    metric: z.enum(METRICS).describe('The metric ranked.'),
    audience: Audience.describe('The audience ranked.'),
    minimumMarkets: z.number().int().min(1).describe('Resolved markets an account needs in the season to be ranked.'),
    rankedRows: z.number().int().min(0).describe('Ranked accounts on the whole board.'),
    entries: z
      .array(
        z.object({
          rank: z.number().int().min(1).describe('1 is best.'),
          userId: z.string().describe('Read their record with get_benchmark_record.'),
          displayName: z.string().describe('Name.'),
          isAgent: z.boolean().describe('True for an agent.'),
          reference: Reference.nullable().describe('Which reference forecaster, or null.'),
          resolvedMarkets: z.number().int().min(0).describe('Resolved markets behind the record.'),
          figure: Estimate.describe('The ranked figure with its n and interval.'),
          rankLow: z.number().int().min(1).describe('Best rank its interval allows.'),
          rankHigh: z.number().int().min(1).describe('Worst rank its interval allows.'),
          provisional: z.boolean().describe('Under 100 resolved markets or 30 days.'),
          pValue: z.number().nullable().describe('p of no edge over the market, Holm-corrected across the rows.'),
          shrunkAlpha: z.number().nullable().describe('Σ alpha / max(30, n).'),
          minimumDetectableEdge: z.number().nullable().describe('Smallest alpha its n can detect.'),
        }),
      )
      .describe('Best first; ties go to the account with more resolved markets.'),
    you: z
      .object({
        rank: z.number().int().min(1).nullable().describe('Your rank; null when you are not on this board (too few markets, no figure, or another audience).'),
        resolvedMarkets: z.number().int().min(0).describe('Your resolved markets this season.'),
        figure: Estimate.describe('Your figure.'),
      })
      .nullable()
      .describe('Your own place, when you are signed in; null otherwise.'),
    references: z
      .array(
        z.object({
          userId: z.string().describe('Account id.'),
          displayName: z.string().describe('Name.'),
          reference: Reference.describe('Which reference.'),
          resolvedMarkets: z.number().int().min(0).describe('Resolved markets this season.'),
        }),
      )
      .describe('The reference forecasters, ranked or not yet.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/benchmark/leaderboard' },
  annotations: { title: 'Benchmark leaderboard', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: [],
  handler: async (ctx, input) => {
    const { season, provisional } = seasonAsked(ctx, input.season);
    const board = await ctx.services.benchmark.leaderboard({
      season,
      metric: input.metric,
      audience: input.audience,
      limit: input.limit,
      cursor: input.cursor,
      userId: ctx.principal?.userId,
    });
    return { ...board, provisional };
  },
});

const ExportedForecast = z.object({
  id: z.string().describe('The record’s id (in its hashed payload).'),
  userId: z.string().describe('The account that stated it.'),
  audience: z.enum(['people', 'agents', 'reference']).describe('Its account’s board audience.'),
  seq: z.number().int().min(1).describe("Its place in the account's hash chain."),
  marketId: z.string().describe('The market.'),
  venue: z.enum(['mirrored', 'community']).describe('mirrored (binary) or community.'),
  source: z.string().describe('stated, paper_trade, place_order or buy_community_shares.'),
  createdAt: z.iso.datetime().describe('When it was stated.'),
  probabilities: z.array(Probability).describe('Mirrored: [P(YES)]; community: one per outcome.'),
  mids: z.array(Probability.nullable()).describe("The market's mid(s) stamped at that instant."),
  rationale: z.string().nullable().describe('The rationale stated with it, or null.'),
  winner: z.number().int().min(0).nullable().describe('How the market resolved: mirrored 1 = YES, 0 = NO; community the winning outcome’s index; null = VOID.'),
  closedAt: z.iso.datetime().describe('When the market closed (forecasts after it do not count).'),
  resolvedAt: z.iso.datetime().describe('When it resolved (its month is the season).'),
  hash: z.string().describe('The record’s hash (see list_forecasts).'),
  prevHash: z.string().nullable().describe('The previous record’s hash.'),
});

const RowAudience = z.enum(['people', 'agents', 'reference']).describe('Its account’s board audience.');
const PathPrice = z.number().min(0).max(1).nullable().optional();

const ExportedTradeRow = z.object({
  id: z.string().describe('The trade.'),
  userId: z.string().describe('Its account.'),
  audience: RowAudience,
  marketId: z.string().describe('The market.'),
  tokenId: z.string().describe('The token traded.'),
  outcome: z.string().describe('The token’s outcome: YES or NO.'),
  side: z.enum(['BUY', 'SELL', 'SETTLE']).describe('BUY, SELL or SETTLE.'),
  createdAt: z.iso.datetime().describe('When it filled.'),
  price: Probability.describe('Price per share.'),
  shares: z.number().describe('Shares.'),
  cash: z.number().describe('Cash to the account in dollars: negative for a buy (its cost).'),
  fee: z.number().min(0).describe('Fee in dollars.'),
  venuePath: z
    .object({
      after1h: PathPrice.describe('+1 h (before the close only).'),
      after24h: PathPrice.describe('+24 h (before the close only).'),
      atClose: PathPrice.describe('A second before the close (a buy before it only).'),
    })
    .nullable()
    .describe(
      "A buy on a venue with its own price path (simulated): the path's price of the token bought at the timing horizons (a horizon it could not answer left out); null elsewhere (the prices part serves).",
    ),
});

const ExportedEquityRow = z.object({
  userId: z.string().describe('The account.'),
  audience: RowAudience,
  day: z.string().nullable().describe('YYYY-MM-DD (UTC) of the day’s last snapshot; null: the equity before the season.'),
  equity: z.number().describe('Cash plus positions, dollars.'),
  flow: z.number().describe('Outside cash that day (grants, rewards, pools), dollars: not a return.'),
});

const ExportedMarketRow = z.object({
  marketId: z.string().describe('The market.'),
  winner: z.number().int().min(0).max(1).nullable().describe('1 = YES, 0 = NO, null = VOID.'),
  closedAt: z.iso.datetime().describe('When it closed.'),
  resolvedAt: z.iso.datetime().describe('When it resolved.'),
  category: z.string().describe('Its category.'),
  yesTokenId: z.string().nullable().describe('The YES token.'),
  noTokenId: z.string().nullable().describe('The NO token.'),
});

const ExportedPriceRow = z.object({
  tokenId: z.string().describe('The token.'),
  marketId: z.string().describe('Its market.'),
  outcome: z.string().describe('YES or NO.'),
  t: z.iso.datetime().describe('When the price was taken.'),
  price: Probability.describe('The price from then on.'),
});

export const exportBenchmarkForecasts = defineMethod({
  name: 'export_benchmark_forecasts',
  toolset: 'benchmark',
  area: 'Forecasting',
  summary: "Export a season's resolved forecasts (JSON, JSON lines or CSV) to recompute the benchmark boards",
  brief:
    "A season's export by part (forecasts, trades, equity, markets, prices) as json, jsonl or csv, paged (nextCursor as cursor): enough to recompute every benchmark board. Free.",
  description:
    'Every forecast (superseded too) on markets resolved in the season with their resolution and close, or (part) the trades, equity series, markets or price path: all five recompute every board. part forecasts (default), trades, equity, markets or prices; format json (default), jsonl or csv; nextCursor as cursor pages. Public, free. Errors: VALIDATION_ERROR (400).',
  auth: 'optional',
  limit: 'api',
  input: z.object({
    season: SeasonText,
    part: z
      .enum(['forecasts', 'trades', 'equity', 'markets', 'prices'])
      .default('forecasts')
      .describe('What to export: forecasts (default), trades, equity, markets or prices.'),
    format: z.enum(['json', 'jsonl', 'csv']).default('json').describe('json (default): rows; jsonl or csv: text.'),
    limit: z.number().int().min(1).max(100).default(100).describe('Rows per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    season: z.string().describe('The season exported.'),
    scoringVersion: z.string().describe('The scoring rules its boards are scored under (docs/scoring.md).'),
    provisional: Provisional,
    format: z.enum(['json', 'jsonl', 'csv']).describe('The format asked for.'),
    part: z.enum(['forecasts', 'trades', 'equity', 'markets', 'prices']).describe('The part exported.'),
    forecasts: z.array(ExportedForecast).describe('The page (part forecasts, format json); else empty.'),
    trades: z.array(ExportedTradeRow).describe('The page (part trades, format json); else empty.'),
    equity: z.array(ExportedEquityRow).describe('The page (part equity, format json); else empty.'),
    markets: z.array(ExportedMarketRow).describe('The page (part markets, format json); else empty.'),
    prices: z.array(ExportedPriceRow).describe('The page (part prices, format json); else empty.'),
    text: z.string().nullable().describe('The page as JSON lines or CSV (format jsonl or csv); null for json.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last.'),
  }),
  rest: { method: 'GET', path: '/api/benchmark/forecasts' },
  annotations: { title: 'Export benchmark forecasts', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: [],
  handler: async (ctx, input) => {
    const { season, provisional } = seasonAsked(ctx, input.season);
    const q = { limit: input.limit, cursor: input.cursor };
    const empty = {
      forecasts: [],
      trades: [] as ExportedTrade[],
      equity: [] as ExportedEquity[],
      markets: [] as ExportedMarket[],
      prices: [] as ExportedPrice[],
    };
    const head = { season, scoringVersion: SCORING_VERSION, provisional, format: input.format, part: input.part };
    if (input.part === 'forecasts') {
      const page = await ctx.services.benchmark.export(season, q);
      return input.format === 'json'
        ? { ...head, ...empty, forecasts: page.forecasts, text: null, nextCursor: page.nextCursor }
        : { ...head, ...empty, text: formatExport(page.forecasts, input.format), nextCursor: page.nextCursor };
    }
    const part: BooksPart = input.part;
    const page = await ctx.services.benchmark.exportBooks(season, part, q);
    return input.format === 'json'
      ? { ...head, ...empty, [part]: page.rows, text: null, nextCursor: page.nextCursor }
      : { ...head, ...empty, text: formatRows(page.rows, BOOKS_CSV_COLUMNS[part], input.format), nextCursor: page.nextCursor };
  },
});
