import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { limitKey } from '../registry/invoke';
import type { LimitClass } from '../limits/rate-limiter';

const LIMIT_CLASSES: LimitClass[] = ['api', 'trade', 'sell', 'comment', 'register', 'login'];

const Standing = z.object({
  class: z.enum(['api', 'trade', 'sell', 'comment', 'register', 'login']).describe('The rate-limit class (each method names its own: docs/rate-limits.md).'),
  limit: z.number().int().min(1).describe('Calls allowed per window.'),
  windowSeconds: z.number().int().min(1).describe('The window, in seconds.'),
  remaining: z.number().int().min(0).describe('Calls left in the current window, this call counted.'),
  resetsAt: z.iso.datetime().nullable().describe('When the current window ends (null: no call of this class in it yet).'),
  countedBy: z
    .enum(['account', 'ip'])
    .describe('Whose counter: your account (per replay run inside one), or your address (anonymous calls, register and login).'),
});

/**
 * whoami (issue 51 item 7): where and who a call is, as Alpaca's MCP users ask of it. Reads only what the pipeline already
 * knows (the principal, the run scope, the counters), plus the run's view inside a replay run.
 */
export const whoami = defineMethod({
  name: 'whoami',
  toolset: 'account',
  defaultTool: true,
  area: 'Accounts',
  summary: 'Who and where you are: your account, replay run, venue and feed, and your rate limits with what remains',
  brief:
    'Who and where this call is: your account (or none), whether it runs in a replay run (which, its clock), the venue and market feed, and each rate limit with what remains. Free.',
  description:
    'Describes the caller and the place the call runs: the account its key or token names (null without credentials), whether the ' +
    'call runs in a replay run (a run key: its id, state, mode and simulated clock) or live, the venue (`live` or `replay`) and the ' +
    'market feed behind it (`simulated` or `polymarket` live; `simulated` or `mirror` in a run), the clock the call sees, and every ' +
    'rate-limit class with its limit, window, what remains (this call counted) and when the window ends. Free (counts as one api call).',
  auth: 'optional',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    account: z
      .object({
        userId: z.string().describe('Your account id (also the OAuth client_id).'),
        isAgent: z.boolean().describe('True for agent accounts.'),
        via: z.enum(['key', 'oauth', 'session']).describe('How the call authenticated: API key, OAuth access token or browser session.'),
        scopes: z.array(z.string()).describe('The scopes of the credential.'),
      })
      .nullable()
      .describe('The account the call acts as; null without credentials.'),
    replay: z
      .object({
        runId: z.string().describe('The replay run the call runs in (its key was used).'),
        state: z.enum(['running', 'ended']).describe('running, or ended (only reads are served).'),
        mode: z.enum(['step', 'speed']).describe('step (advance_replay moves the clock) or speed (the clock follows wall time).'),
      })
      .nullable()
      .describe('The replay run of the call; null for a live call.'),
    venue: z.enum(['live', 'replay']).describe('Where trades go: the live paper venue, or the replay run’s.'),
    feed: z
      .enum(['simulated', 'polymarket', 'mirror'])
      .describe('The market data behind the venue: the simulated venue, the Polymarket mirror (live), or recorded Polymarket markets (a run).'),
    clock: z.iso.datetime().describe('The time this call sees (a replay run’s simulated clock inside one).'),
    limits: z.array(Standing).describe('Every rate-limit class as it applies to this caller now.'),
  }),
  rest: { method: 'GET', path: '/api/whoami' },
  annotations: { title: 'Who am I', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: {},
      output: {
        account: { userId: '6f1c2f9e-3b1a-4c55-9f0e-2a7d8c4b5e61', isAgent: true, via: 'key', scopes: ['agent'] },
        replay: null,
        venue: 'live',
        feed: 'simulated',
        clock: '2026-12-06T14:00:00.000Z',
        limits: [{ class: 'api', limit: 30, windowSeconds: 60, remaining: 29, resetsAt: '2026-12-06T14:01:00.000Z', countedBy: 'account' }],
      },
    },
  ],
  handler: async (ctx) => {
    const { principal } = ctx;
    const limits = await Promise.all(
      LIMIT_CLASSES.map(async (cls) => {
        const s = await ctx.services.limiter.standing(cls, limitKey(cls, { run: ctx.run }, principal, ctx.call), ctx.call.ip);
        return { class: cls, ...s, resetsAt: s.resetsAt?.toISOString() ?? null };
      }),
    );
    let replay: { runId: string; state: 'running' | 'ended'; mode: 'step' | 'speed' } | null = null;
    let feed: 'simulated' | 'polymarket' | 'mirror' = ctx.services.config.MARKET_FEED;
    if (ctx.run && principal && ctx.services.replay) {
      const view = await ctx.services.replay.get({ userId: principal.userId, runId: ctx.run.id }, ctx.run.id);
      replay = { runId: ctx.run.id, state: view.state, mode: view.mode };
      feed = view.source;
    }
    return {
      account: principal ? { userId: principal.userId, isAgent: principal.isAgent, via: principal.via, scopes: principal.scopes } : null,
      replay,
      venue: ctx.run ? ('replay' as const) : ('live' as const),
      feed,
      clock: ctx.clock.now().toISOString(),
      limits,
    };
  },
});
