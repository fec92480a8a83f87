import { Webhook } from 'standardwebhooks';

/** The stable id of one event's delivery to one endpoint: the same on every retry and replay (receivers dedupe on it). */
export function webhookMessageId(endpointId: string, seq: number): string {
  return `msg_${endpointId.replace(/-/g, '')}_${seq}`;
}

/** What a receiver gets: the event as the account's log holds it. */
export function webhookBody(e: { type: string; seq: number; createdAt: string; data: Record<string, unknown> }): string {
  return JSON.stringify({ type: e.type, seq: e.seq, timestamp: e.createdAt, data: e.data });
}

/**
 * Standard Webhooks headers for `body`: webhook-id, webhook-timestamp (seconds) and webhook-signature, which holds one
 * `v1,<base64 HMAC-SHA256>` per secret (two while a rotated-out secret is still honoured), space-separated.
 */
export function signedHeaders(secrets: string[], msgId: string, at: Date, body: string): Record<string, string> {
  const signature = secrets.map((s) => new Webhook(s).sign(msgId, at, body)).join(' ');
  return {
    'webhook-id': msgId,
    'webhook-timestamp': Math.floor(at.getTime() / 1000).toString(),
    'webhook-signature': signature,
  };
}
