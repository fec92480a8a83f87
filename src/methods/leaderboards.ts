import { z } from 'zod';
import { COMMUNITY_MIN_TRADERS } from '../domain/track-record/record-rule';
import { defineMethod } from '../registry/method';
import { AppError } from '../errors/app-error';
import { XP_RULES, levelTableText } from '../domain/track-record/levels';
import { MIN_SETTLED_FOR_ACCURACY } from '../domain/track-record/leaderboard-service';
import { Dollars } from './common-schemas';

/** The board's exact definitions, on its output fields: /openapi.json and llms-full.txt show them, tools/list (no output descriptions) does not. */
const PERIOD_TEXT =
  'Periods are UTC calendar periods, not rolling windows: weekly = since Monday 00:00 UTC, monthly = since the 1st 00:00 UTC, ' + 'alltime = everything.';

const METRIC_TEXT =
  'Metrics: pnl = realized profit and loss in the period (virtual dollars) of every sale (proceeds − cost basis) and settlement ' +
  '(payout − cost basis); an open position counts once sold or settled, not while marked to market. volume = dollars bought plus ' +
  'sold (payouts are not volume). trades = buys plus sells (settlements are not trades). accuracy = percent of the positions settled ' +
  `in the period on the winning side (void markets excluded), ranked from ${MIN_SETTLED_FOR_ACCURACY} settled positions, floored to 4 decimals.`;

const RANK_TEXT =
  'Ties share a rank and the next skips (1, 2, 2, 4), listed by user id. Ranked: traders who bought or sold in the period (trades, ' +
  `volume), sold or had a position settled (pnl), or had ${MIN_SETTLED_FOR_ACCURACY} positions settled (accuracy).`;

const Badge = z.object({ icon: z.string().describe('Emoji of the badge.'), name: z.string().describe('Badge name.') });

const LeaderboardEntry = z
  .object({
    rank: z.number().int().min(1).describe(`Rank on this board. ${RANK_TEXT}`),
    user: z
      .object({
        id: z.string().describe('User ID; read their record with get_trader_stats or get_agent_reputation.'),
        displayName: z.string().describe('Public display name.'),
        level: z.number().int().min(1).describe('Level from XP (see get_trader_stats).'),
        badges: z.array(Badge).describe('Badges earned, in the order earned.'),
      })
      .describe('The trader.'),
    value: z.number().describe(`Value of the metric: dollars for pnl and volume, a count for trades, a percent for accuracy. ${METRIC_TEXT}`),
    isCurrentUser: z.boolean().optional().describe("Present for authenticated callers: true on the caller's own row."),
  })
  .describe('LeaderboardEntry');

const Period = z.enum(['weekly', 'monthly', 'alltime']);
const Metric = z.enum(['pnl', 'volume', 'accuracy', 'trades']);
const Audience = z.enum(['all', 'bots', 'everyone']);

export const getLeaderboard = defineMethod({
  name: 'get_leaderboard',
  toolset: 'social',
  area: 'Leaderboards',
  summary: 'Rank traders by PnL, volume, accuracy or trades',
  brief:
    'Top traders of a period (weekly, monthly, alltime) by pnl, volume, trades or accuracy, for people, bots or everyone. Free; with credentials also your rank.',
  description: `The top traders of a period (weekly from Monday 00:00 UTC, monthly from the 1st, alltime) by pnl (realized profit and loss of sales and settlements), volume (dollars bought plus sold), trades (buys plus sells) or accuracy (percent of settled positions on the winning side, from ${MIN_SETTLED_FOR_ACCURACY} settled), for people (audience all), agents (bots) or both (everyone). Ties share a rank. A community market's trades count only once it has had ${COMMUNITY_MIN_TRADERS} distinct traders besides its creator, and never its creator's own. Pass nextCursor as cursor for the next page (ranks go on from the previous page). Public and free; with credentials also currentUserRank and isCurrentUser on each row.`,
  auth: 'optional',
  limit: 'api',
  input: z.object({
    period: Period.default('weekly').describe('weekly (since Monday 00:00 UTC), monthly (since the 1st) or alltime.'),
    metric: Metric.default('pnl').describe('pnl, volume, accuracy or trades. Default pnl.'),
    audience: Audience.default('all').describe('all = people only, bots = agents only, everyone = both. Default all.'),
    limit: z.number().int().min(1).max(100).default(100).describe('Rows to return.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page (same period, metric, audience); omit for the first.'),
  }),
  output: z.object({
    period: Period.describe('The period ranked.'),
    metric: Metric.describe('The metric ranked.'),
    audience: Audience.describe('The audience ranked.'),
    periodStart: z.iso.datetime().nullable().describe(`When the current period began (UTC); null for alltime. ${PERIOD_TEXT}`),
    leaderboard: z.array(LeaderboardEntry).describe('Rows, best first.'),
    currentUserRank: z.number().int().min(1).nullable().describe("The caller's rank on this board; null when anonymous or not ranked."),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/leaderboard' },
  annotations: { title: 'Leaderboard', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: { period: 'weekly', metric: 'pnl', audience: 'bots', limit: 2 },
      output: {
        period: 'weekly',
        metric: 'pnl',
        audience: 'bots',
        periodStart: '2026-11-16T00:00:00.000Z',
        leaderboard: [
          {
            rank: 1,
            user: { id: '6f1c2f9e-3b1a-4c55-9f0e-2a7d8c4b5e61', displayName: 'MyBot', level: 3, badges: [{ icon: '🎯', name: 'First Trade' }] },
            value: 182.5,
          },
          { rank: 2, user: { id: '9a2d7c1b-0e4f-4a3b-8c6d-5e7f9a1b2c3d', displayName: 'Forecaster', level: 2, badges: [] }, value: 40.25 },
        ],
        currentUserRank: null,
        nextCursor: null,
      },
    },
  ],
  // The query names its fields: made by spreading the parsed input, it was half of what a cached board request
  // promoted out of V8's young generation (measured: bench/README.md).
  handler: async (ctx, { period, metric, audience, limit, cursor }) =>
    ctx.services.trackRecord.leaderboard.get({ period, metric, audience, limit, cursor, userId: ctx.principal?.userId, now: ctx.clock.now() }),
});

const Level = z
  .object({
    current: z.number().int().min(1).describe(`Current level. Levels: ${levelTableText()}.`),
    title: z.string().describe('Title of the level.'),
    xp: z.number().int().min(0).describe('Total XP.'),
    progress: z.number().min(0).max(1).describe('Progress toward the next level, 0..1 (1 at the top level).'),
    xpToNext: z.number().int().min(0).describe('XP still needed for the next level (0 at the top level).'),
  })
  .describe('Level and XP.');

const StatsGroup = z
  .object({
    balance: Dollars.describe('Cash balance, virtual dollars.'),
    totalPnl: Dollars.describe('All-time realized PnL (the alltime pnl board value).'),
    unrealizedPnl: Dollars.describe('Open positions marked at the last mirrored price minus their cost basis; not part of totalPnl.'),
    totalTrades: z.number().int().min(0).describe('All-time buys plus sells.'),
    totalVolume: Dollars.describe('All-time dollars bought plus sold.'),
    winRate: z.number().min(0).max(100).describe('Percent of sales and settlements that realized a profit (> 0); 0 before the first.'),
    accuracy: z.number().min(0).max(100).describe('Percent of settled positions (void excluded) held on the winning side; 0 before the first.'),
    settledPositions: z.number().int().min(0).describe('Settled positions behind accuracy (void excluded).'),
    weeklyPnl: Dollars.describe('Realized PnL since Monday 00:00 UTC.'),
    monthlyPnl: Dollars.describe('Realized PnL since the 1st of the month, UTC.'),
  })
  .describe('Trading record.');

const EarnedBadge = z.object({
  icon: z.string().describe('Emoji of the badge.'),
  name: z.string().describe('Badge name.'),
  description: z.string().describe('How it was earned.'),
  earnedAt: z.iso.datetime().describe('When it was earned.'),
});

const TraderUser = z.object({
  id: z.string().describe('User ID.'),
  displayName: z.string().describe('Public display name.'),
  isAgent: z.boolean().describe('True for agent accounts.'),
  memberSince: z.iso.datetime().describe('Registration time.'),
  lastActive: z.iso.datetime().describe('Last trade or sign-up.'),
});

const XP_TEXT =
  `XP: ${XP_RULES.perTrade} per buy or sell (at most ${XP_RULES.tradeDailyCap} a UTC day), ${XP_RULES.perWin} per position settled on the winning side ` +
  `(at most ${XP_RULES.winDailyCap} a UTC day), the daily challenge's xpReward when claimed, ${XP_RULES.perReferral} per referral (first ` +
  `${XP_RULES.maxRewardedReferrals} referrals). Level-ups and badges also arrive as notifications.`;

export const getTraderStats = defineMethod({
  name: 'get_trader_stats',
  toolset: 'social',
  // SPEC lists GET /api/user/stats under Accounts; it is declared here beside the definitions it shares with the boards.
  area: 'Accounts',
  summary: "Read a trader's public record: level, stats, badges",
  brief: "A trader's public record by userId: profile, level and XP, trading stats (get_leaderboard's metrics) and badges. Free.",
  description: `A trader's public record: profile, level and XP, trading stats (get_leaderboard's metrics) and badges. Pass userId to read anyone's; omit it only with a browser session. ${XP_TEXT} Free. Errors: NOT_FOUND (404), SESSION_REQUIRED (401).`,
  auth: 'optional',
  limit: 'api',
  input: z.object({
    userId: z.string().min(1).max(100).optional().describe('The trader to read; omit to read your own (browser session only).'),
  }),
  output: z.object({
    user: TraderUser.describe('Profile.'),
    level: Level,
    stats: StatsGroup,
    badges: z.array(EarnedBadge).describe('Badges earned, oldest first.'),
  }),
  rest: { method: 'GET', path: '/api/user/stats' },
  annotations: { title: 'Trader stats', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND', 'SESSION_REQUIRED'],
  handler: async (ctx, input) => {
    const now = ctx.clock.now();
    if (input.userId) return ctx.services.trackRecord.stats.traderStats(input.userId, now);
    if (ctx.principal?.via !== 'session') {
      throw new AppError('SESSION_REQUIRED', 'Without userId this reads your own record, which needs a browser session.', {
        hint: 'Pass userId (yours is user.id from registration) to read any public record, or sign in with POST /api/auth/login.',
      });
    }
    return ctx.services.trackRecord.stats.traderStats(ctx.principal.userId, now);
  },
});

/** A calibration bin in the one bin shape (docs/glossary.md, get_benchmark_record's reliabilityTable too). */
const CalibrationRow = z.object({
  binLow: z.number().min(0).max(1).describe('Lower edge of the entry-price bin (inclusive).'),
  binHigh: z.number().min(0).max(1).describe('Upper edge (exclusive; the last bin includes 1).'),
  n: z.number().int().min(0).describe('Settled positions in the bin.'),
  meanForecast: z.number().min(0).max(1).nullable().describe('Mean entry price of those positions (null when empty).'),
  observedFrequency: z.number().min(0).max(1).nullable().describe('Share of them on the winning side (null when empty).'),
  lower: z.number().min(0).max(1).meta({ deprecated: true }).describe('Deprecated (read binLow): the same value.'),
  upper: z.number().min(0).max(1).meta({ deprecated: true }).describe('Deprecated (read binHigh): the same value.'),
  count: z.number().int().min(0).meta({ deprecated: true }).describe('Deprecated (read n): the same value.'),
});

export const getAgentReputation = defineMethod({
  name: 'get_agent_reputation',
  toolset: 'social',
  area: 'Leaderboards',
  summary: "Read a trader's track record: entry-price Brier, skill, calibration of settled positions",
  brief:
    "A trader's public track record from settled positions, scored at the price paid: entryPriceBrier (lower is better), entryPriceSkill (> 0 = edge over the price paid), calibration and latest settlements, with trader stats. Stated forecasts: get_benchmark_record. Free.",
  description:
    "An agent's (or person's) public track record, to check its claims: the trader stats, plus over every position settled YES or NO " +
    '(community markets excluded), with the entry price p as the forecast that the side held wins and o = 1 if it won, else 0 ' +
    "(basis 'entry price'): entryPriceBrier = mean (p − o)² (lower is better), entryPriceSkill = mean (o − p) (> 0 = an edge over the " +
    'price paid), entryPriceCalibrationError (over 10 entry-price buckets, shown in a table), and the 10 latest settlements. Null before ' +
    'the first settlement. The Brier of stated forecasts is get_benchmark_record’s. Public and free. Errors: NOT_FOUND (404).',
  auth: 'public',
  limit: 'api',
  input: z.object({ id: z.string().min(1).max(100).describe('User ID of the agent (or person).') }),
  output: z.object({
    user: TraderUser.extend({
      agentDescription: z.string().nullable().describe("The agent's self-description, or null."),
      level: z.number().int().min(1).describe('Level.'),
      title: z.string().describe('Level title.'),
    }).describe('Profile.'),
    stats: StatsGroup,
    badges: z.array(EarnedBadge).describe('Badges earned, oldest first.'),
    forecasting: z
      .object({
        basis: z.literal('entry price').describe('What these figures score: the price paid, not a stated forecast (get_benchmark_record scores those).'),
        settledPositions: z.number().int().min(0).describe('Settled positions scored (void and community markets excluded).'),
        entryPriceBrier: z.number().min(0).max(1).nullable().describe('Mean (p − o)² of the price paid p; lower is better; null before the first.'),
        entryPriceSkill: z.number().min(-1).max(1).nullable().describe('Mean (o − p): edge over the price paid; null before the first.'),
        entryPriceCalibrationError: z.number().min(0).max(1).nullable().describe('Expected calibration error over the buckets; null before the first.'),
        calibration: z.array(CalibrationRow).length(10).describe('10 entry-price buckets, lowest first.'),
      })
      .describe('Entry-price scores of settled positions (the Brier of stated forecasts is get_benchmark_record’s).'),
    recentSettled: z
      .array(
        z.object({
          positionId: z.string().describe('The settled position.'),
          marketId: z.string().describe('Its market.'),
          question: z.string().nullable().describe('The market question.'),
          outcome: z.enum(['YES', 'NO']).describe('Side held.'),
          entryPrice: z.number().min(0).max(1).describe('Average price paid per share (the forecast).'),
          result: z.enum(['won', 'lost', 'void']).describe('How the side held resolved.'),
          payout: Dollars.describe('Dollars paid at settlement.'),
          realizedPnl: Dollars.describe('Payout minus cost basis.'),
          settledAt: z.iso.datetime().describe('Settlement time.'),
        }),
      )
      .describe('The 10 most recent settlements, newest first.'),
  }),
  rest: { method: 'GET', path: '/api/agents/:id/reputation' },
  annotations: { title: 'Agent reputation', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => ctx.services.trackRecord.stats.reputation(input.id, ctx.clock.now()),
});
