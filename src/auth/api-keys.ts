import { createHash, randomBytes } from 'node:crypto';

/** API keys: `svc_` + 32 hex chars (128 random bits). Stored only as a SHA-256 hash: with 128 bits of
 * entropy a slow KDF adds nothing, and an indexed lookup by hash keeps the comparison out of user code. */
export const API_KEY_PATTERN = /^svc_[0-9a-f]{32}$/;

export function generateApiKey(): string {
  return `svc_${randomBytes(16).toString('hex')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
