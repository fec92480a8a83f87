import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { COMMITMENT_SCHEME, seasonCommitments, suiteCommitments } from '../market-data/simulated/venue-commitments';
import { masterSecretOf } from '../market-data/simulated/venue-secret-store';

export const getVenueCommitments = defineMethod({
  name: 'get_venue_commitments',
  area: 'Markets',
  summary: 'Sealed-outcome commitments and revealed secrets',
  brief: 'Commitments fixing the venue’s outcomes; secrets once revealed. Free.',
  description:
    'The simulated venue’s outcomes are sealed: each market’s starting price, price path, news and outcome come from a secret combined with its public seed, so the seed and the code alone predict nothing. ' +
    'A live-venue market is sealed under the season (UTC month) its resolution lands in: scope season|YYYY-MM, listed from the venue’s first season to the last a market open now can resolve in; its secret is revealed when the season ends, after every market of it has resolved. ' +
    'A published replay suite’s scenarios are sealed under scope suite|<name>, revealed when the suite retires. ' +
    'With a revealed secret anyone can recompute every outcome of its scope and check the commitment (scripts/verify-venue.ts; docs/market-data.md). ' +
    'There are no season scopes when the live venue is Polymarket. ' +
    COMMITMENT_SCHEME +
    ' Free.',
  auth: 'public',
  limit: 'api',
  toolset: 'benchmark',
  input: z.object({}),
  output: z.object({
    scopes: z
      .array(
        z.object({
          scope: z.string().describe('season|YYYY-MM (live markets that resolve in that month) or suite|<name> (a replay suite’s scenarios).'),
          commitment: z.string().describe('SHA-256 (hex) of the scope’s 32-byte secret, published while it is sealed.'),
          state: z.enum(['sealed', 'revealed']).describe('sealed: the secret is kept; revealed: secret is set and anyone can check it.'),
          secret: z.string().nullable().describe('The scope’s secret (64 hex digits) once revealed; null while sealed.'),
          revealAt: z.iso
            .datetime()
            .nullable()
            .describe('When the secret is (or was) revealed: a season’s end, a suite’s retirement; null for a current suite.'),
        }),
      )
      .describe('The seasons of the live simulated venue, oldest first, then each published replay suite.'),
  }),
  rest: { method: 'GET', path: '/api/venue/commitments' },
  annotations: { title: 'Venue commitments', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: [],
  handler: async (ctx) => {
    const { config } = ctx.services;
    const master = masterSecretOf(config);
    const nowMs = ctx.clock.now().getTime();
    const seasons = config.MARKET_FEED === 'simulated' ? seasonCommitments(master, nowMs, config.SIM_SPEED) : [];
    const scopes = [...seasons, ...suiteCommitments(master, nowMs)].map(({ scope, commitment, state, secret, revealAt }) => ({
      scope,
      commitment,
      state,
      secret,
      revealAt,
    }));
    return { scopes };
  },
});
