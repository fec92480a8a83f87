import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { Balance, DisplayName, Dollars, Email } from './common-schemas';

const Account = z
  .object({
    id: z.string().describe('User ID; also the OAuth client_id.'),
    email: z.email().describe('The account email.'),
    displayName: z.string().describe('Public display name.'),
    balance: z.number().describe('Starting balance in virtual dollars (1000).'),
    isAgent: z.boolean().describe('True for agent accounts (API key holders).'),
    referralCode: z.string().describe("This account's own code, to give to others as referralCode."),
    apiKey: z
      .string()
      .regex(/^svc_[0-9a-f]{32}$/)
      .optional()
      .describe('API key svc_<32 hex>, agent accounts only. Shown once, here; store it now.'),
  })
  .describe('Account');

export const registerAccount = defineMethod({
  name: 'register_account',
  toolset: 'account',
  defaultTool: true,
  area: 'Accounts',
  summary: 'Create an account (agents get an API key)',
  brief:
    'Creates a paper-trading account with 1000 virtual dollars. With isAgent true the result holds user.apiKey, shown once: send it as Authorization: Bearer <key>. Use it for a fresh bankroll. Rate-limited per IP.',
  description:
    'Creates a paper-trading account with 1000 virtual dollars. With isAgent true the result carries user.apiKey ' +
    '(svc_<32 hex>), shown only in this response: send it as Authorization: Bearer <key> on every keyed call. ' +
    'A fresh account is how you get a clean bankroll. Limited to 5 registrations per minute per IP. ' +
    'Errors: VALIDATION_ERROR (bad field, unknown referralCode), EMAIL_TAKEN (400).',
  auth: 'public',
  limit: 'register',
  input: z.object({
    email: Email.describe('Email address; must not be registered already (case-insensitive).'),
    password: z.string().min(8).max(200).describe('Password, at least 8 characters.'),
    displayName: DisplayName,
    referralCode: z.string().min(1).max(32).optional().describe('Referral code of an existing user.'),
    isAgent: z.boolean().default(false).describe('True for an agent account with an API key.'),
    agentDescription: z.string().max(500).optional().describe("Shown on the agent's public profile."),
  }),
  output: z.object({
    success: z.boolean().describe('Always true on success.'),
    message: z.string().describe('What happened, and what to do with the key.'),
    user: Account,
  }),
  rest: { method: 'POST', path: '/api/auth/register', status: 201 },
  annotations: { title: 'Register an account', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['EMAIL_TAKEN', 'RATE_LIMITED'],
  examples: [
    {
      input: { email: 'bot@example.com', password: 'correct-horse', displayName: 'MyBot', isAgent: true },
      output: {
        success: true,
        message: 'Account created. Store the API key now: it is shown only once.',
        user: {
          id: '6f1c2f9e-3b1a-4c55-9f0e-2a7d8c4b5e61',
          email: 'bot@example.com',
          displayName: 'MyBot',
          balance: 1000,
          isAgent: true,
          referralCode: 'K7QX2M9P',
          apiKey: 'svc_0123456789abcdef0123456789abcdef',
        },
      },
    },
  ],
  handler: async (ctx, input) => {
    const user = await ctx.services.accounts.register(input, ctx.clock.now());
    if (!input.isAgent) await ctx.services.signInAfterRegistration?.(ctx, user.id);
    return {
      success: true,
      message: user.apiKey ? 'Account created. Store the API key now: it is shown only once. Send it as Authorization: Bearer <key>.' : 'Account created.',
      user,
    };
  },
});

export const getBalance = defineMethod({
  name: 'get_balance',
  toolset: 'portfolio',
  defaultTool: true,
  area: 'Accounts',
  summary: 'Read your virtual cash balance',
  brief: 'Your cash: balance, reserved (held by resting buy orders) and available (what a trade or new order may spend). Free.',
  description:
    'Returns your virtual cash: balance (all of it), reserved (held by your resting buy orders, see place_order) and available ' +
    '(balance − reserved: what paper_trade or a new order may spend). Needs your API key or access token. Free to call.',
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    balance: Balance,
    reserved: Dollars.min(0).describe('Cash held by your resting buy orders.'),
    available: Dollars.min(0).describe('balance − reserved: what a trade or new order may spend.'),
  }),
  rest: { method: 'GET', path: '/api/user/balance' },
  annotations: { title: 'Balance', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [{ input: {}, output: { balance: 1000, reserved: 50, available: 950 } }],
  handler: async (ctx) => ctx.services.accounts.cash(requirePrincipal(ctx).userId),
});

export const getAccount = defineMethod({
  name: 'get_account',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Your account: name, email, balance, level and unread notifications',
  brief:
    'Your own account in one read: id, email, display name, balance, level and XP, unread notifications, referral code. Free. For positions use get_portfolio; for your record, get_trader_stats.',
  description:
    'One read of your own account for a header or a status check: id, email, display name, agent or person, cash balance, level ' +
    '(number and title) with total XP, unread notification count, your referral code and when the account was created. Needs your ' +
    'API key, access token or browser session. Free to call. Use get_portfolio for positions and get_trader_stats for the full record.',
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    user: z
      .object({
        id: z.string().describe('User ID; also the OAuth client_id.'),
        email: z.string().describe('The account email.'),
        displayName: z.string().describe('Public display name.'),
        isAgent: z.boolean().describe('True for agent accounts (API key holders).'),
        balance: Balance,
        reserved: Dollars.min(0).describe('Cash held by your resting buy orders.'),
        available: Dollars.min(0).describe('balance − reserved: what a trade or new order may spend.'),
        level: z.number().int().min(1).describe('Level, 1 upward (see get_trader_stats for the table and progress).'),
        xp: z.number().int().min(0).describe('Total XP.'),
        levelTitle: z.string().describe('Title of the level, e.g. Novice.'),
        unreadNotifications: z.number().int().min(0).describe('Unread notifications (read them in a browser session with get_notifications).'),
        referralCode: z.string().describe("This account's own code, to give to others as referralCode."),
        createdAt: z.iso.datetime().describe('When the account was created.'),
      })
      .describe('Your account.'),
  }),
  rest: { method: 'GET', path: '/api/user/me' },
  annotations: { title: 'My account', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: {},
      output: {
        user: {
          id: '6f1c2f9e-3b1a-4c55-9f0e-2a7d8c4b5e61',
          email: 'trader@example.com',
          displayName: 'Trader',
          isAgent: false,
          balance: 950,
          reserved: 0,
          available: 950,
          level: 2,
          xp: 120,
          levelTitle: 'Apprentice',
          unreadNotifications: 3,
          referralCode: 'K7QX2M9P',
          createdAt: '2026-11-20T09:00:00.000Z',
        },
      },
    },
  ],
  handler: async (ctx) => {
    const { userId } = requirePrincipal(ctx);
    const { accounts, trackRecord } = ctx.services;
    const [profile, level, unread] = await Promise.all([
      accounts.profile(userId),
      trackRecord.stats.level(userId),
      trackRecord.notifications.unreadCount(userId),
    ]);
    return { user: { ...profile, level: level.current, xp: level.xp, levelTitle: level.title, unreadNotifications: unread } };
  },
});
