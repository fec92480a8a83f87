/** A fresh Idempotency-Key: the service answers a repeat of the same key with the first result. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
