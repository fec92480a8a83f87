import { newIdempotencyKey } from '../../web/src/lib/idempotency';

describe("the web app's Idempotency-Key (web/src/lib/idempotency.ts)", () => {
  test('when keys are made without crypto.randomUUID (an insecure origin has none), then each is a fresh version-4 UUID', () => {
    const randomUUID = Object.getOwnPropertyDescriptor(crypto, 'randomUUID');
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const keys = Array.from({ length: 200 }, () => newIdempotencyKey());
      for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      if (randomUUID) Object.defineProperty(crypto, 'randomUUID', randomUUID);
      else delete (crypto as { randomUUID?: unknown }).randomUUID;
    }
  });
});
