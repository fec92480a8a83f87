import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Config } from '../config';
import { loadA2aSdk } from '../a2a-tasks/sdk';

/** Where the public key of the card signature is served (the signature's `jku`). */
export const CARD_JWKS_PATH = '/.well-known/agent-card-jwks.json';

interface SigningKey {
  key: KeyObject;
  alg: string;
  kid: string;
  publicJwk: JsonWebKey;
}

/**
 * Signs agent cards with AGENT_CARD_SIGNING_KEY the way A2A v1.0 (§8.4) says: a JWS (flattened, payload detached)
 * over the RFC 8785 (JCS) canonical form of the card as the v1.0 schema reads it — the card passed through the
 * protocol's AgentCard shape (fields outside v1.0, such as the v0.3 `url`, and empty values left out), without
 * `signatures`. Any A2A SDK verifies it that way (verifyAgentCardSignature). Null when no key is configured.
 */
export class CardSigner {
  private constructor(private readonly signing: SigningKey) {}

  static fromConfig(config: Pick<Config, 'AGENT_CARD_SIGNING_KEY' | 'AGENT_CARD_SIGNING_KID'>): Promise<CardSigner> | null {
    const raw = config.AGENT_CARD_SIGNING_KEY;
    if (!raw) return null;
    return (async () => {
      const { calculateJwkThumbprint } = await import('jose');
      const text = raw.trim();
      const key = text.startsWith('{') ? createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' }) : createPrivateKey(text);
      const publicJwk = createPublicKey(key).export({ format: 'jwk' });
      const alg = algorithmOf(key);
      const kid = config.AGENT_CARD_SIGNING_KID ?? (await calculateJwkThumbprint(publicJwk as Parameters<typeof calculateJwkThumbprint>[0]));
      return new CardSigner({ key, alg, kid, publicJwk });
    })();
  }

  /** The JWK Set holding the public key (served at CARD_JWKS_PATH). */
  jwks(): { keys: Array<JsonWebKey & { kid: string; alg: string; use: string }> } {
    return { keys: [{ ...this.signing.publicJwk, kid: this.signing.kid, alg: this.signing.alg, use: 'sig' }] };
  }

  async sign<Card extends object>(card: Card, origin: string): Promise<Card & { signatures: Array<{ protected: string; signature: string }> }> {
    const [{ FlattenedSign }, { default: canonicalize }] = await Promise.all([import('jose'), import('canonicalize')]);
    const payload = canonicalize(await canonicalFormOf(card));
    if (payload === undefined) throw new Error('the agent card has no canonical form');
    const jws = await new FlattenedSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: this.signing.alg, kid: this.signing.kid, typ: 'JOSE', jku: `${origin}${CARD_JWKS_PATH}` })
      .sign(this.signing.key);
    return { ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] };
  }
}

/** What is signed: the card as the v1.0 schema reads it, empty values and `signatures` removed (A2A §8.4.1). */
export async function canonicalFormOf(card: object): Promise<unknown> {
  const { core } = await loadA2aSdk();
  const normalized = core.AgentCard.toJSON(core.AgentCard.fromJSON(card as Parameters<typeof core.AgentCard.fromJSON>[0])) as Record<string, unknown>;
  delete normalized.signatures;
  return withoutEmpty(normalized) ?? {};
}

function withoutEmpty(v: unknown): unknown {
  if (v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const kept = v.map(withoutEmpty).filter((x) => x !== undefined);
    return kept.length ? kept : undefined;
  }
  if (typeof v === 'object') {
    const kept = Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => [k, withoutEmpty(x)] as const)
      .filter(([, x]) => x !== undefined);
    return kept.length ? Object.fromEntries(kept) : undefined;
  }
  return v;
}

function algorithmOf(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
      if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
      throw new Error(`AGENT_CARD_SIGNING_KEY: EC curve ${curve} is not supported (use P-256 or P-384)`);
    }
    case 'ed25519':
      return 'EdDSA';
    case 'rsa':
      return 'RS256';
    default:
      throw new Error(`AGENT_CARD_SIGNING_KEY: a ${key.asymmetricKeyType} key is not supported (use EC P-256/P-384, Ed25519 or RSA)`);
  }
}
