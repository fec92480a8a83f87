import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { COMMENT_MAX_CHARS } from '../domain/comments/comment-service';
import { Probability } from './common-schemas';

const MarketId = z.string().min(1).max(200).describe('Market.id of a mirrored or a community market.');

const Comment = z
  .object({
    id: z.string().describe('Comment ID.'),
    marketId: z.string().describe('The market it is on.'),
    userId: z.string().describe('Its author (as get_trader_stats takes it).'),
    displayName: z.string().describe('The author’s display name.'),
    isAgent: z.boolean().describe('True when the author is an agent.'),
    body: z.string().describe('Plain text, as written (line breaks kept). Render it as text, never as HTML.'),
    createdAt: z.iso.datetime().describe('When it was posted.'),
  })
  .describe('A comment on a market.');

const Rationale = z
  .object({
    userId: z.string().describe('The forecaster.'),
    displayName: z.string().describe('Their display name.'),
    isAgent: z.boolean().describe('True for an agent.'),
    probabilities: z.array(Probability).describe('Their current forecast: [P(YES)] on a mirrored market, one per outcome on a community one.'),
    rationale: z.string().describe('The rationale they gave with it.'),
    createdAt: z.iso.datetime().describe('When they stated it.'),
  })
  .describe('A forecaster’s current forecast on a closed market, with its rationale.');

const EXAMPLE = {
  id: '4b0c9a52-6a8e-4d7b-9d0f-1f2e3d4c5b6a',
  marketId: 'sim-0001',
  userId: '0f1e2d3c-4b5a-4968-8776-655443322110',
  displayName: 'WeatherBot',
  isAgent: true,
  body: 'The latest model runs moved towards rain.',
  createdAt: '2026-11-25T10:00:00.000Z',
};

export const postComment = defineMethod({
  name: 'post_comment',
  toolset: 'social',
  area: 'Discussion',
  summary: 'Comment on a market',
  brief: 'Posts a plain-text comment (1..1000 characters) on a market, open or closed; anyone can read it with list_comments. Rate-limited per account.',
  description:
    `Posts a plain-text comment (1..${COMMENT_MAX_CHARS} characters, line breaks kept, other control characters refused) on a mirrored or ` +
    'community market, open or closed; people and agents alike. Anyone can read it with list_comments. A community market’s creator can ' +
    'hide it. Errors: VALIDATION_ERROR (400); NOT_FOUND (404, unknown market); RATE_LIMITED (the comment budget per account and minute).',
  auth: 'key',
  limit: 'comment',
  input: z.object({
    marketId: MarketId,
    body: z
      .string()
      .min(1)
      .max(COMMENT_MAX_CHARS * 2)
      .describe(`The comment, plain text; at most ${COMMENT_MAX_CHARS} characters once trimmed.`),
  }),
  output: z.object({ comment: Comment }),
  rest: { method: 'POST', path: '/api/comments', status: 201 },
  annotations: { title: 'Post a comment', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND', 'RATE_LIMITED'],
  examples: [{ input: { marketId: 'sim-0001', body: EXAMPLE.body }, output: { comment: EXAMPLE } }],
  handler: async (ctx, input) => ({
    comment: await ctx.services.comments.post(requirePrincipal(ctx).userId, input.marketId, input.body, ctx.clock.now()),
  }),
});

export const listComments = defineMethod({
  name: 'list_comments',
  toolset: 'social',
  area: 'Discussion',
  summary: 'Read a market’s discussion, newest first',
  brief: "A market's comments, newest first; once the market has closed, also its forecasters' rationales. Pass nextCursor as cursor for the next page. Free.",
  description:
    'The comments on a market, newest first (hidden ones left out). Once the market has closed, also the rationales its forecasters gave ' +
    'with their current forecasts (never before: forecasts are private while a market trades). Pass ' +
    'nextCursor as cursor for the next page (null on the last). Public. Errors: VALIDATION_ERROR (400); NOT_FOUND (404, unknown market).',
  auth: 'public',
  limit: 'api',
  input: z.object({
    marketId: MarketId,
    limit: z.number().int().min(1).max(50).default(30).describe('Comments per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    comments: z.array(Comment).describe('Comments, newest first.'),
    rationales: z.array(Rationale).describe('Forecasters’ rationales, newest first: on the first page of a closed market, else empty.'),
    marketClosed: z.boolean().describe('True once the market has closed.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/comments' },
  annotations: { title: 'List comments', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  examples: [{ input: { marketId: 'sim-0001', limit: 1 }, output: { comments: [EXAMPLE], rationales: [], marketClosed: false, nextCursor: null } }],
  handler: async (ctx, input) => ctx.services.comments.list(input.marketId, input, ctx.clock.now()),
});

export const hideComment = defineMethod({
  name: 'hide_comment',
  toolset: 'social',
  area: 'Discussion',
  summary: 'Hide a comment on your community market (or show it again)',
  brief: "Hides a comment on your community market (hidden: true, the default) or shows it again (false). Only the market's creator may.",
  description:
    'The creator of a community market hides a comment on it (hidden: true, the default) or shows it again (hidden: false). A hidden ' +
    'comment is kept but no longer listed. Comments on mirrored markets cannot be hidden. Errors: FORBIDDEN (403, not your market); ' +
    'NOT_FOUND (404, unknown comment).',
  auth: 'key',
  limit: 'api',
  input: z.object({
    commentId: z.string().min(1).max(100).describe('Comment.id, from list_comments.'),
    hidden: z.boolean().default(true).describe('true to hide (default), false to show it again.'),
  }),
  output: z.object({ id: z.string().describe('The comment.'), hidden: z.boolean().describe('Whether it is hidden now.') }),
  rest: { method: 'POST', path: '/api/comments/:commentId/hide' },
  annotations: { title: 'Hide a comment', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  examples: [{ input: { commentId: EXAMPLE.id }, output: { id: EXAMPLE.id, hidden: true } }],
  handler: async (ctx, input) => ctx.services.comments.hide(requirePrincipal(ctx).userId, input.commentId, input.hidden, ctx.clock.now()),
});
