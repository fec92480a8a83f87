import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { COMMITMENT_SCHEME, seasonCommitments, suiteCommitments } from '../market-data/simulated/venue-commitments';
import { masterSecretOf } from '../market-data/simulated/venue-secret-store';

const Sealed = {
  commitment: z.string().describe('SHA-256 (hex) of the scope’s 32-byte secret, published while it is sealed.'),
  state: z.enum(['sealed', 'revealed']).describe('sealed: the secret is kept; revealed: secret is set and anyone can check it.'),
  secret: z.string().nullable().describe('The scope’s secret (64 hex digits) once revealed; null while sealed.'),
};

export const getVenueCommitments = defineMethod({
  name: 'get_venue_commitments',
  area: 'Markets',
  summary: 'The simulated venue’s sealed-outcome commitments per season and per replay suite, and each secret once revealed',
  brief:
    'Commitments (SHA-256 of a secret) that fix the simulated venue’s outcomes in advance: one per season (revealed when it ends) and per replay suite (revealed when it retires). Free.',
  description:
    'The simulated venue’s outcomes are sealed: each market’s starting price, price path, news and outcome come from a secret combined with its public seed, so the seed and the code alone predict nothing. ' +
    'A live-venue market is sealed under the season (UTC month) its resolution lands in; that season’s commitment is published from the start and its secret revealed when the season ends, after every market of it has resolved. ' +
    'A published replay suite’s scenarios are sealed under the suite’s own secret, revealed when the suite retires. ' +
    'With a revealed secret anyone can recompute every outcome of its scope and check the commitment (scripts/verify-venue.ts; docs/market-data.md). ' +
    'seasons is empty when the live venue is Polymarket. Free.',
  auth: 'public',
  limit: 'api',
  toolset: 'benchmark',
  input: z.object({}),
  output: z.object({
    venue: z.enum(['simulated', 'polymarket']).describe('The live venue (MARKET_FEED); replay scenarios are always the simulated venue.'),
    scheme: z.string().describe('How a commitment and a market’s draws are computed from a secret.'),
    seasons: z
      .array(
        z.object({
          season: z.string().describe('The season (YYYY-MM): markets that resolve in it are sealed under its secret.'),
          ...Sealed,
          revealAt: z.iso.datetime().describe('When the secret is (or was) revealed: the season’s end.'),
        }),
      )
      .describe('The live simulated venue’s seasons, from its first to the last one a market open now can resolve in, oldest first.'),
    suites: z
      .array(
        z.object({
          suite: z.string().describe('The published replay suite (list_replay_suite).'),
          ...Sealed,
          revealAt: z.iso.datetime().nullable().describe('When the suite retired and its secret was revealed; null while it is current.'),
        }),
      )
      .describe('Each published replay suite’s commitment.'),
  }),
  rest: { method: 'GET', path: '/api/venue/commitments' },
  annotations: { title: 'Venue commitments', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: [],
  handler: async (ctx) => {
    const { config } = ctx.services;
    const master = masterSecretOf(config);
    const nowMs = ctx.clock.now().getTime();
    const simulated = config.MARKET_FEED === 'simulated';
    return {
      venue: simulated ? ('simulated' as const) : ('polymarket' as const),
      scheme: COMMITMENT_SCHEME,
      seasons: simulated ? seasonCommitments(master, nowMs, config.SIM_SPEED) : [],
      suites: suiteCommitments(master, nowMs),
    };
  },
});
