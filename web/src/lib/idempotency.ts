/**
 * A fresh Idempotency-Key (a random UUID, version 4): the service answers a repeat of the same key with the first result.
 * Made from getRandomValues, not crypto.randomUUID, which a page served over plain http on a host name (no secure
 * context, as behind the documented HAProxy) does not have.
 */
export function newIdempotencyKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
