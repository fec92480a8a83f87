import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { CHALLENGE_POOL } from '../domain/track-record/challenges';
import { fromMicro } from '../domain/money/micro';
import { Balance } from './common-schemas';

const POOL_TEXT = CHALLENGE_POOL.map((c) => `${c.type} ("${c.description}" ${c.xpReward} XP + ${fromMicro(c.cashRewardMicro)} dollars)`).join(', ');

export const getDailyChallenge = defineMethod({
  name: 'get_daily_challenge',
  toolset: 'social',
  area: 'Gamification',
  summary: "Read today's challenge and your progress",
  brief: "Today's daily challenge (one per UTC day, the same for everyone) and your progress; claim it with claim_challenge.",
  description:
    "Today's daily challenge and your progress. There is one challenge per UTC day, the same for everyone, drawn deterministically " +
    `(a hash of the date) from the pool: ${POOL_TEXT}. Progress counts your own buys, sales and markets traded that UTC day, updated in ` +
    'the same transaction as each trade; distinct markets count up to the target. Claim the reward with claim_challenge once completed. ' +
    'Browser session only.',
  auth: 'session',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    challenge: z
      .object({
        id: z.string().describe('Challenge ID (daily-YYYY-MM-DD); pass it to claim_challenge.'),
        title: z.string().describe('Short title.'),
        description: z.string().describe('What to do.'),
        type: z.enum(['trade_count', 'trade_volume', 'distinct_markets', 'profitable_sale']).describe('Kind of challenge.'),
        xpReward: z.number().int().min(0).describe('XP paid on claim.'),
        cashReward: z.number().min(0).describe('Virtual dollars paid on claim.'),
        day: z.string().describe('The UTC day (YYYY-MM-DD) it belongs to.'),
        expiresAt: z.iso.datetime().describe('When the day ends; it can still be claimed during the next UTC day.'),
      })
      .describe("Today's challenge."),
    progress: z
      .object({
        current: z.number().min(0).describe('Progress so far (dollars for trade_volume, else a count).'),
        target: z.number().min(0).describe('Progress needed.'),
        completed: z.boolean().describe('True once current reaches target.'),
        claimed: z.boolean().describe('True once the reward was claimed.'),
        percentComplete: z.number().min(0).max(100).describe('current / target in percent, at most 100.'),
      })
      .describe('Your progress.'),
  }),
  rest: { method: 'GET', path: '/api/challenges' },
  annotations: { title: 'Daily challenge', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx) => ctx.services.trackRecord.challenges.today(requirePrincipal(ctx).userId, ctx.clock.now()),
});

export const claimChallenge = defineMethod({
  name: 'claim_challenge',
  toolset: 'social',
  area: 'Gamification',
  summary: 'Claim the reward of a completed daily challenge',
  brief: "Pays a completed daily challenge's cash and XP reward, once, on its UTC day or the next.",
  description:
    "Pays a completed challenge's cashReward (a ledger entry of type challenge_reward) and xpReward, once. A challenge can be claimed on " +
    'its UTC day or during the next one. Errors: NOT_COMPLETED or ALREADY_CLAIMED (400: nothing paid), NOT_FOUND (404: unknown, future ' +
    'or expired id). Two claims at once pay once. Browser session only.',
  auth: 'session',
  limit: 'api',
  input: z.object({ challengeId: z.string().min(1).max(100).describe('The challenge id from get_daily_challenge.') }),
  output: z.object({
    success: z.boolean().describe('True when paid.'),
    cashReward: z.number().min(0).describe('Virtual dollars credited.'),
    xpReward: z.number().int().min(0).describe('XP added.'),
    balance: Balance.describe('Your balance after the reward.'),
    xp: z.number().int().min(0).describe('Your total XP after the reward.'),
  }),
  rest: { method: 'POST', path: '/api/challenges' },
  annotations: { title: 'Claim challenge', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_COMPLETED', 'ALREADY_CLAIMED', 'NOT_FOUND'],
  handler: async (ctx, input) => ctx.services.trackRecord.challenges.claim(requirePrincipal(ctx).userId, input.challengeId, ctx.clock.now()),
});

const Notification = z.object({
  id: z.string().describe('Notification ID; pass it to mark_notifications_read.'),
  type: z.string().describe('badge, level_up, challenge, resolution, referral or price_alert.'),
  title: z.string().describe('Headline.'),
  message: z.string().describe('Details.'),
  ref: z
    .string()
    .nullable()
    .describe(
      'What it is about, by type: resolution the position id (get_portfolio), challenge the challenge id (claim_challenge), badge the badge id, ' +
        'level_up level-N, referral the new account id, price_alert {marketId}:{above|below}:{ms}; null when none. The same ref as the notification event.',
    ),
  read: z.boolean().describe('True once marked read.'),
  createdAt: z.iso.datetime().describe('When it was written.'),
});

export const getNotifications = defineMethod({
  name: 'get_notifications',
  toolset: 'social',
  area: 'Gamification',
  summary: 'List your notifications, newest first',
  brief: 'Your notifications, newest first, with the unread count: badges, level-ups, challenges, resolutions, referrals, price alerts.',
  description:
    'Your notifications, newest first, with the count of unread ones. Types: badge (a badge earned), level_up, challenge (the daily ' +
    'challenge completed: claim it), resolution (a position settled when its market resolved), referral (someone joined with your code), ' +
    'price_alert (a watched market reached your alert: watch_market). Pass nextCursor as cursor for the next page (null on the last). ' +
    'Each is written in the same transaction as the event behind it. Browser session only.',
  auth: 'session',
  limit: 'api',
  input: z.object({
    limit: z.number().int().min(1).max(100).default(50).describe('How many to return.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    notifications: z.array(Notification).describe('Newest first.'),
    unreadCount: z.number().int().min(0).describe('Unread notifications in total (not only those returned).'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/notifications' },
  annotations: { title: 'Notifications', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => ctx.services.trackRecord.notifications.list(requirePrincipal(ctx).userId, input.limit, input.cursor),
});

export const markNotificationsRead = defineMethod({
  name: 'mark_notifications_read',
  toolset: 'social',
  area: 'Gamification',
  summary: 'Mark notifications read (listed ones or all)',
  brief: 'Marks the listed notification ids read, or all of yours with markAll true.',
  description:
    'Marks the listed notification ids read, or all of yours with markAll true. Ids that are not yours or do not exist are ignored ' +
    '(never touched, never reported). With neither field nothing changes. Browser session only.',
  auth: 'session',
  limit: 'api',
  input: z.object({
    notificationIds: z.array(z.string().max(100)).max(500).optional().describe('IDs to mark read (up to 500).'),
    markAll: z.boolean().optional().describe('True marks all of your notifications read.'),
  }),
  output: z.object({
    success: z.boolean().describe('Always true.'),
    updated: z.number().int().min(0).describe('How many notifications changed from unread to read.'),
  }),
  rest: { method: 'POST', path: '/api/notifications' },
  annotations: { title: 'Mark notifications read', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => ({
    success: true,
    updated: await ctx.services.trackRecord.notifications.markRead(requirePrincipal(ctx).userId, input.notificationIds, input.markAll === true),
  }),
});
