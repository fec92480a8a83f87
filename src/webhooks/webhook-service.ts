import type { Config } from '../config';
import { AppError } from '../errors/app-error';
import type { AccountEventType } from '../domain/events/account-events';
import type { WebhookEndpoints, WebhookView } from '../domain/webhooks/webhook-endpoints';
import type { DeliveryState, DeliveryView, WebhookDeliveries } from '../domain/webhooks/webhook-deliveries';
import { checkTargetUrl, OutboundRefused, type Resolve } from '../outbound/guarded-post';

/**
 * What the webhook methods call: registration (after the SSRF check of the URL), listing, deletion, secret rotation,
 * deliveries and replays. Sending is the DeliveryWorker's; a replay nudges this process's worker.
 */
export class WebhookService {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: WebhookDeliveries,
    private readonly config: Pick<Config, 'OUTBOUND_ALLOW_PRIVATE' | 'WEBHOOK_MAX_ENDPOINTS'>,
    private readonly onQueued: () => void = () => {},
    private readonly resolve?: Resolve,
  ) {}

  async create(userId: string, input: { url: string; types?: AccountEventType[]; description?: string }, now: Date): Promise<WebhookView & { secret: string }> {
    try {
      await checkTargetUrl(input.url, { allowPrivate: this.config.OUTBOUND_ALLOW_PRIVATE, resolve: this.resolve });
    } catch (err) {
      if (!(err instanceof OutboundRefused)) throw err;
      if (err.code === 'ADDRESS_NOT_ALLOWED') {
        throw new AppError('ADDRESS_NOT_ALLOWED', `${err.message} Webhooks are only sent to public addresses; nothing was registered.`, {
          hint: 'Register a URL on the public internet (a tunnel to a local receiver works).',
        });
      }
      throw new AppError('VALIDATION_ERROR', `url: ${err.message}`, { details: [{ path: 'url', message: err.message, code: 'invalid_url' }] });
    }
    return this.endpoints.create(userId, input, this.config.WEBHOOK_MAX_ENDPOINTS, now);
  }

  list(userId: string): Promise<WebhookView[]> {
    return this.endpoints.list(userId);
  }

  delete(userId: string, id: string): Promise<void> {
    return this.endpoints.delete(userId, id);
  }

  rotateSecret(userId: string, id: string, now: Date): Promise<WebhookView & { secret: string }> {
    return this.endpoints.rotateSecret(userId, id, now);
  }

  listDeliveries(
    userId: string,
    id: string,
    q: { state?: DeliveryState; limit: number; cursor?: string },
  ): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
    return this.deliveries.list(userId, id, q);
  }

  async replay(
    userId: string,
    id: string,
    from: { deliveryId?: string; fromSeq?: number },
    now: Date,
  ): Promise<{ replayed: number; nextFromSeq: string | null }> {
    if ((from.deliveryId === undefined) === (from.fromSeq === undefined)) {
      throw new AppError('VALIDATION_ERROR', 'Give exactly one of deliveryId and fromSeq.', {
        details: [{ path: 'deliveryId', message: 'exactly one of deliveryId and fromSeq', code: 'custom' }],
      });
    }
    const out = await this.deliveries.replay(
      userId,
      id,
      from.deliveryId !== undefined ? { deliveryId: from.deliveryId } : { fromSeq: BigInt(from.fromSeq!) },
      now,
    );
    this.onQueued();
    return out;
  }
}
