import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';

const CommunityMarket = z.object({
  id: z.string().describe('Community market ID.'),
  slug: z.string().describe('Slug; the market page is /community-markets/{slug}.'),
  question: z.string().describe('The question.'),
  description: z.string().describe('Resolution criteria.'),
  category: z.string().describe('Category.'),
  outcomes: z.array(z.string()).describe('Outcome labels.'),
  endDate: z.iso.datetime().describe('Close date.'),
  status: z.enum(['active', 'resolved']).describe('active or resolved.'),
  creatorId: z.string().describe('User ID of the creator (addition to SPEC).'),
  featured: z.boolean().describe('Featured by the operators (addition to SPEC).'),
  imageUrl: z.string().nullable().describe('Image URL, if any (addition to SPEC).'),
  resolvedOutcome: z.string().nullable().describe('The winning label once resolved (addition to SPEC).'),
  createdAt: z.iso.datetime().describe('When it was created (addition to SPEC).'),
});

export const listCommunityMarkets = defineMethod({
  name: 'list_community_markets',
  area: 'Community markets',
  summary: 'List user-created markets',
  description:
    'Lists community markets (questions created by users, with their own outcome labels), newest first. Filters: category (or all), ' +
    'status (active by default, resolved, all), creator (a user ID), featured, limit 1..100 (default 50). Community markets are not ' +
    'mirrored from the venue and have no live prices; they are a place to propose and discuss questions.',
  auth: 'public',
  limit: 'api',
  input: z.object({
    category: z.string().max(100).optional().describe('A category, or all.'),
    status: z.enum(['active', 'resolved', 'all']).default('active').describe('active (default), resolved or all.'),
    creator: z.string().max(100).optional().describe('Only markets created by this user ID.'),
    featured: z.boolean().default(false).describe('true limits to featured markets.'),
    limit: z.number().int().min(1).max(100).default(50).describe('How many, 1..100 (default 50).'),
  }),
  output: z.object({ markets: z.array(CommunityMarket).describe('Community markets, newest first.') }),
  rest: { method: 'GET', path: '/api/user-markets' },
  annotations: { title: 'Community markets', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => ({ markets: await ctx.services.community.list(input) }),
});

export const getCommunityMarket = defineMethod({
  name: 'get_community_market',
  area: 'Community markets',
  summary: 'One user-created market',
  description:
    'One community market by its slug (or id): question, outcome labels, status and, once resolved, the winning label. Its page, in HTML ' +
    'or markdown, is /community-markets/{slug}. Unknown → 404 NOT_FOUND.',
  auth: 'public',
  limit: 'api',
  input: z.object({ slug: z.string().min(1).max(200).describe('The community market slug, or its ID.') }),
  output: CommunityMarket,
  rest: { method: 'GET', path: '/api/user-markets/:slug' },
  annotations: { title: 'Community market', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => ctx.services.community.bySlug(input.slug),
});

export const createCommunityMarket = defineMethod({
  name: 'create_community_market',
  area: 'Community markets',
  summary: 'Create a community market (browser session)',
  description:
    'Creates a community market owned by the signed-in person: question 10..200 characters, optional description (resolution criteria, ' +
    'max 1000), category, 2..10 distinct outcome labels of 1..50 characters, a future endDate. Needs a browser session; API keys are not accepted.',
  auth: 'session',
  limit: 'api',
  input: z.object({
    question: z.string().trim().min(10).max(200).describe('The question, 10..200 characters.'),
    description: z.string().max(1000).optional().describe('Resolution criteria, at most 1000 characters.'),
    category: z.string().trim().min(1).max(100).describe('Category.'),
    outcomes: z.array(z.string().trim().min(1).max(50)).min(2).max(10).describe('2..10 outcome labels, each 1..50 characters.'),
    endDate: z.iso.datetime({ offset: true }).describe('Close date, ISO 8601, in the future.'),
    imageUrl: z.url().max(2000).optional().describe('Image URL.'),
  }),
  output: CommunityMarket,
  rest: { method: 'POST', path: '/api/user-markets' },
  annotations: { title: 'Create a community market', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (ctx, input) => ctx.services.community.create(requirePrincipal(ctx).userId, input, ctx.clock.now()),
});

export const resolveCommunityMarket = defineMethod({
  name: 'resolve_community_market',
  area: 'Community markets',
  summary: 'Resolve your community market (browser session)',
  description:
    "Resolves a community market you created to one of its outcome labels; active → resolved, once. Another person's market answers 404; " +
    'an already resolved one 409 CONFLICT. Needs a browser session.',
  auth: 'session',
  limit: 'api',
  input: z.object({
    id: z.string().min(1).max(100).describe('Community market ID.'),
    outcome: z.string().min(1).max(50).describe("The winning outcome label (one of the market's outcomes)."),
  }),
  output: CommunityMarket,
  rest: { method: 'POST', path: '/api/user-markets/:id/resolve' },
  annotations: { title: 'Resolve a community market', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async (ctx, input) => ctx.services.community.resolve(requirePrincipal(ctx).userId, input.id, input.outcome, ctx.clock.now()),
});
