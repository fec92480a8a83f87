import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { ACCOUNT_EVENT_TYPES } from '../domain/events/account-events';
import { AppError } from '../errors/app-error';
import { ATTEMPTS_LISTED } from '../domain/webhooks/webhook-deliveries';

const WebhookId = z.string().min(1).max(100).describe('Webhook.id, from create_webhook or list_webhooks.');
const EventType = z.enum(ACCOUNT_EVENT_TYPES);

const Webhook = z
  .object({
    id: z.string().describe('Webhook ID.'),
    url: z.string().describe('Where deliveries are POSTed.'),
    description: z.string().nullable().describe('Your note, or null.'),
    types: z.array(EventType).nullable().describe('Event types delivered; null: every type.'),
    state: z.enum(['enabled', 'disabled']).describe('disabled once the receiver answered 410 Gone: nothing more is sent.'),
    disabledReason: z.string().nullable().describe('Why it was disabled; null while enabled.'),
    createdAt: z.iso.datetime().describe('When it was registered.'),
  })
  .describe('A webhook endpoint.');

const Secret = z.string().describe('Signing secret (Standard Webhooks: whsec_ + base64 key). Shown only here: store it to verify webhook-signature.');

const Attempt = z
  .object({
    n: z.number().int().min(1).describe('Attempt number, from 1.'),
    at: z.iso.datetime().describe('When it was sent.'),
    httpStatus: z.number().int().nullable().describe("The receiver's HTTP status; null when none came (see error)."),
    status: z.number().int().nullable().meta({ deprecated: true }).describe('Deprecated (read httpStatus): the same value.'),
    error: z.string().nullable().describe('Why no answer came (timeout, connection refused, address not allowed); null when one did.'),
    durationMs: z.number().int().min(0).describe('From sending to the end of the answer, in milliseconds.'),
  })
  .describe('One attempt of a delivery.');

const Delivery = z
  .object({
    id: z.string().describe('Delivery ID.'),
    webhookId: z.string().describe('Its webhook.'),
    seq: z.number().int().min(1).describe("The event's sequence number in your account's event log."),
    type: EventType.describe('The event type.'),
    state: z.enum(['pending', 'succeeded', 'failed']).describe('pending (queued or being retried), succeeded (2xx), failed (retries exhausted, or 410).'),
    attempts: z.array(Attempt).describe(`Its latest ${ATTEMPTS_LISTED} attempts at most, oldest first (n counts every attempt).`),
    nextAttemptAt: z.iso.datetime().nullable().describe('When the next attempt is due; null when done or waiting behind an earlier event.'),
    createdAt: z.iso.datetime().describe('When it was queued.'),
    finishedAt: z.iso.datetime().nullable().describe('When it succeeded or failed; null while pending.'),
  })
  .describe('One event delivered (or to be delivered) to one webhook.');

const EXAMPLE_WEBHOOK = {
  id: '3d1f0c2e-8b7a-4f7e-9c55-2a1d6e4b9f01',
  url: 'https://agent.example.com/hooks/paper-trading',
  description: 'fills and cancels',
  types: ['order.filled', 'order.cancelled'] as Array<(typeof ACCOUNT_EVENT_TYPES)[number]>,
  state: 'enabled' as const,
  disabledReason: null,
  createdAt: '2026-11-25T10:00:00.000Z',
};

export const createWebhook = defineMethod({
  name: 'create_webhook',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: 'Register a URL that receives your account events, signed the Standard Webhooks way',
  brief:
    'Registers an http(s) URL that receives your account events (all, or the types listed) as signed POSTs in seq order (Standard Webhooks headers), retried with backoff. The signing secret is shown once. Accounts hold a limited number of webhooks.',
  description:
    "Registers an http(s) URL that receives your account's events from now on (all, or the `types` you list) as signed POSTs of {type, seq, timestamp, data} with webhook-id (dedupe on it), webhook-timestamp and webhook-signature headers: verify them with a `standardwebhooks` library and the returned secret (shown once). Events go out in seq order; a non-2xx or slow answer is retried with backoff, then fails; 410 Gone disables the webhook. At most WEBHOOK_MAX_ENDPOINTS webhooks per account (default 5). Not with a replay run's key (FORBIDDEN, 403): a run's events are followed with stream_events or list_events. Errors: ADDRESS_NOT_ALLOWED (400, a private address), VALIDATION_ERROR (400); CONFLICT (409, at the limit); FORBIDDEN (403, a replay run's key).",
  auth: 'key',
  limit: 'api',
  input: z.object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .describe('Where to POST deliveries: http(s), no credentials, a public address.'),
    types: z.array(EventType).min(1).max(ACCOUNT_EVENT_TYPES.length).optional().describe('Only these event types; omit for every type.'),
    description: z.string().max(200).optional().describe('A note for yourself.'),
  }),
  output: z.object({ webhook: Webhook, secret: Secret }),
  rest: { method: 'POST', path: '/api/webhooks', status: 201 },
  annotations: { title: 'Create a webhook', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['ADDRESS_NOT_ALLOWED', 'CONFLICT', 'FORBIDDEN'],
  examples: [
    {
      input: { url: EXAMPLE_WEBHOOK.url, types: EXAMPLE_WEBHOOK.types, description: EXAMPLE_WEBHOOK.description },
      output: { webhook: EXAMPLE_WEBHOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    },
  ],
  handler: async (ctx, input) => {
    // A run's events are stamped on its clock and its books are its own: signed POSTs to the outside world, timestamped on
    // the wall clock and retried on it, would be neither (issue 52 item 5). Its streams and log serve it instead.
    if (ctx.run) {
      throw new AppError('FORBIDDEN', 'A replay run’s key cannot register a webhook: a run’s events are followed with stream_events or list_events.', {
        hint: 'Hold GET /api/events (stream_events) or poll list_events with the run’s key; webhooks are for your live account.',
      });
    }
    const { secret, ...webhook } = await ctx.services.webhooks.create(requirePrincipal(ctx).userId, input, ctx.clock.now());
    return { webhook, secret };
  },
});

export const listWebhooks = defineMethod({
  name: 'list_webhooks',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: 'List your webhooks',
  brief: 'Your webhooks, oldest first, without their secrets. Free.',
  description: 'Your registered webhooks, oldest first, without their secrets (rotate_webhook_secret issues a new one). Free to call.',
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({ webhooks: z.array(Webhook).describe('Your webhooks, oldest first.') }),
  rest: { method: 'GET', path: '/api/webhooks' },
  annotations: { title: 'List webhooks', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx) => ({ webhooks: await ctx.services.webhooks.list(requirePrincipal(ctx).userId) }),
});

export const deleteWebhook = defineMethod({
  name: 'delete_webhook',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: 'Delete one of your webhooks',
  brief: 'Deletes a webhook with its deliveries; nothing more is sent to it.',
  description: 'Deletes a webhook with its deliveries and their attempts: nothing more is sent to it, retries included. Errors: NOT_FOUND (404).',
  auth: 'key',
  limit: 'api',
  input: z.object({ id: WebhookId }),
  output: z.object({ deleted: z.literal(true).describe('Always true.') }),
  rest: { method: 'DELETE', path: '/api/webhooks/:id' },
  annotations: { title: 'Delete a webhook', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => {
    await ctx.services.webhooks.delete(requirePrincipal(ctx).userId, input.id);
    return { deleted: true as const };
  },
});

export const rotateWebhookSecret = defineMethod({
  name: 'rotate_webhook_secret',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: "Replace a webhook's signing secret",
  brief: 'Issues a new signing secret (shown once); for 24 hours deliveries are signed with both the new and the old one.',
  description:
    'Issues a new signing secret (shown only here). For 24 hours deliveries carry two signatures in webhook-signature, one with the new ' +
    'secret and one with the old, so a receiver can switch without missing one; then only the new. Errors: NOT_FOUND (404).',
  auth: 'key',
  limit: 'api',
  input: z.object({ id: WebhookId }),
  output: z.object({ webhook: Webhook, secret: Secret }),
  rest: { method: 'POST', path: '/api/webhooks/:id/rotate-secret' },
  annotations: { title: 'Rotate a webhook secret', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => {
    const { secret, ...webhook } = await ctx.services.webhooks.rotateSecret(requirePrincipal(ctx).userId, input.id, ctx.clock.now());
    return { webhook, secret };
  },
});

export const listWebhookDeliveries = defineMethod({
  name: 'list_webhook_deliveries',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: "List a webhook's deliveries with their attempts, newest event first",
  brief:
    "One webhook's deliveries, newest first, each with event seq and type, state and every attempt (time, status or error, duration). Filter by state; pass nextCursor as cursor for the next page. Free.",
  description:
    "One webhook's deliveries, newest event first, each with its event seq and type, state (pending, succeeded, failed), and every attempt " +
    "(time, the receiver's HTTP status or the error, duration). Optionally only one state. Pass nextCursor as " +
    'cursor for the next page (null on the last). Free to call. Errors: NOT_FOUND (404, no such webhook of yours); VALIDATION_ERROR (bad cursor).',
  auth: 'key',
  limit: 'api',
  input: z.object({
    id: WebhookId,
    state: z.enum(['pending', 'succeeded', 'failed']).optional().describe('Only deliveries in this state.'),
    limit: z.number().int().min(1).max(100).default(20).describe('Deliveries per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    deliveries: z.array(Delivery).describe('Deliveries, newest event first.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/webhooks/:id/deliveries' },
  annotations: { title: 'List webhook deliveries', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => ctx.services.webhooks.listDeliveries(requirePrincipal(ctx).userId, input.id, input),
});

export const replayWebhookDelivery = defineMethod({
  name: 'replay_webhook_delivery',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: 'Send a delivery again, or every event from a seq on',
  brief:
    'Sends one delivery again (deliveryId), or every event of your log from fromSeq on, up to 1000 per call (continue with nextCursor as cursor). Each starts a new round of retries.',
  description:
    'Sends one delivery again (deliveryId), or every event of your log from fromSeq on that the webhook takes (also events from before it ' +
    'was registered), up to 1,000 per call: nextCursor says where to go on (null when done; pass it as cursor). Each keeps its webhook-id and starts a new ' +
    'round of retries; they go out in seq order, before later pending ones. Errors: NOT_FOUND (404, no such webhook or delivery); ' +
    'CONFLICT (409, the webhook is disabled); VALIDATION_ERROR (not exactly one of deliveryId, fromSeq and cursor).',
  auth: 'key',
  limit: 'api',
  input: z.object({
    id: WebhookId,
    deliveryId: z.string().min(1).max(100).optional().describe('The delivery to send again (Delivery.id).'),
    fromSeq: z.number().int().min(1).optional().describe('Send again every event from this seq on (inclusive).'),
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/)
      .optional()
      .describe('The nextCursor of a previous replay: send again the rest, from where it stopped.'),
  }),
  output: z.object({
    replayed: z.number().int().min(0).describe('Deliveries queued again.'),
    nextCursor: z.string().nullable().describe('With fromSeq or cursor: pass this as cursor to replay the rest; null when none is left.'),
    nextFromSeq: z.string().nullable().meta({ deprecated: true }).describe('Deprecated (read nextCursor): the same value.'),
  }),
  rest: { method: 'POST', path: '/api/webhooks/:id/replay' },
  annotations: { title: 'Replay webhook deliveries', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async (ctx, input) => {
    const { cursor, ...rest } = input;
    // A cursor is the seq the previous replay stopped before: the same start as fromSeq, given by the service.
    if (cursor !== undefined && input.fromSeq !== undefined) throw new AppError('VALIDATION_ERROR', 'send fromSeq or cursor, not both.');
    const from = cursor === undefined ? rest : { ...rest, fromSeq: Number(cursor) };
    const done = await ctx.services.webhooks.replay(requirePrincipal(ctx).userId, input.id, from, ctx.clock.now());
    return { ...done, nextCursor: done.nextFromSeq };
  },
});
