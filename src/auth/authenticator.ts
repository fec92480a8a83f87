import { AppError } from '../errors/app-error';
import type { Clock } from '../clock';
import type { AuthMode, CallInfo, Principal, Transport } from './caller';
import type { Queryable } from '../db/database';
import type { RateLimiter } from '../limits/rate-limiter';
import { API_KEY_PATTERN, hashSecret } from './api-keys';
import { isSameOrigin, isWrite } from './same-origin';
import type { VerifiedToken } from './access-tokens';
import { SESSION_LIFETIME_S, type VerifiedSession } from './sessions';

/** Verifies an OAuth access token (src/auth/access-tokens.ts in production). */
export interface AccessTokenVerifier {
  verify(token: string, now: Date): Promise<VerifiedToken | null>;
}

/** Verifies a browser session token (src/auth/sessions.ts in production). */
export interface SessionVerifier {
  verify(token: string, now: Date): Promise<VerifiedSession | null>;
}

export interface AuthenticatorOptions {
  db: Queryable;
  clock: Clock;
  accessTokens?: AccessTokenVerifier;
  sessions?: SessionVerifier;
  /** Failed credentials count against the caller's per-IP `api` limit, so guessing is throttled too. */
  limiter?: RateLimiter;
  /** Milliseconds for the key cache's ages (performance.now() unless a test drives it). */
  monotonic?: () => number;
}

const KEY_CACHE_MS = 5000;
const KEY_CACHE_SIZE = 100_000;

/** The scope every keyed operation needs (SPEC: "the OAuth token with scope agent"). */
export const AGENT_SCOPE = 'agent';

/** The audiences (RFC 8707 resources) of one of the service's addresses: the whole API, or only its MCP endpoint. */
export function audiences(origin: string): { api: string; mcp: string } {
  return { api: origin, mcp: `${origin}/mcp` };
}

/** RFC 9728 metadata URL of the resource a transport serves: MCP has its own, everything else shares the root. */
export function resourceMetadataUrl(origin: string, transport: Transport): string {
  return `${origin}/.well-known/oauth-protected-resource${transport === 'mcp' ? '/mcp' : ''}`;
}

/**
 * Turns the credentials a transport extracted into a Principal, per the method's `auth`:
 * - `public`: nobody is looked up;
 * - `session`: only a browser session (cookie) counts; keys and tokens are refused with a hint;
 * - `key` / `optional`: a bearer API key or access token, or else a browser session (people trade from
 *   the browser). Access tokens must be meant for this resource (audience) at one of the service's own addresses
 *   (call.address.own: the Host of a request never adds one) and carry scope `agent`.
 * Cookie-authenticated writes must come from the origin the request reached, and it must be the service's (CSRF).
 */
export class Authenticator {
  /**
   * Recently verified API keys (by hash), so a burst of calls with one key costs one lookup. Only hits
   * are kept, for KEY_CACHE_MS from the lookup that found them; rotating a key forgets its account here at
   * once (forgetKeysOf). Another process sharing the database may accept a rotated key for at most
   * KEY_CACHE_MS more.
   */
  private readonly keys = new Map<string, { userId: string; isAgent: boolean; until: number }>();
  /**
   * Lookups under way, by hash: calls that need the same key at once share one. Without this, every call
   * arriving while a key's entry had lapsed sent its own lookup; at a thousand keyed calls a second that
   * was tens of lookups queued on the pool every KEY_CACHE_MS, and those calls were the keyed boards' p99.
   */
  private readonly lookups = new Map<string, Promise<{ userId: string; isAgent: boolean } | null>>();
  /** Bumped by forgetKeysOf: a lookup that began before a rotation does not put the old key back. */
  private generation = 0;

  constructor(private readonly opts: AuthenticatorOptions) {}

  private now(): number {
    return this.opts.monotonic ? this.opts.monotonic() : performance.now();
  }

  async authenticate(mode: AuthMode, call: CallInfo): Promise<Principal | null> {
    const creds = call.credentials;
    if (creds.misplaced) {
      throw this.challenge(call, 'UNAUTHORIZED', `Credentials are accepted only in the Authorization header, never in the ${creds.misplaced}.`, {
        error: 'invalid_request',
        hint: 'Send Authorization: Bearer <API_KEY or access token>. A key that was put in a URL or body may have been logged somewhere: rotate it (POST /api/user/api-key/rotate).',
      });
    }
    if (mode === 'public') return null;

    if (mode === 'session') {
      const p = creds.sessionToken ? await this.fromSession(call) : null;
      if (p) return p;
      if (creds.sessionToken) await this.countFailure(call);
      throw new AppError('SESSION_REQUIRED', 'This operation needs a browser session; API keys and access tokens are not accepted here.', {
        hint:
          creds.bearer !== undefined
            ? 'API keys and OAuth tokens cannot call browser-only operations. Sign in with POST /api/auth/login (email and password) and send the svc.session-token cookie it sets.'
            : 'Sign in with POST /api/auth/login from a browser; the session cookie is sent automatically.',
      });
    }

    if (creds.bearer !== undefined) {
      const p = await this.fromBearer(creds.bearer, call);
      if (!p) {
        await this.countFailure(call);
        throw this.challenge(call, 'UNAUTHORIZED', 'The API key or access token is invalid, expired, or meant for another resource.', {
          error: 'invalid_token',
        });
      }
      if (p.via === 'oauth' && !p.scopes.includes(AGENT_SCOPE)) {
        throw this.challenge(call, 'FORBIDDEN', `The access token lacks scope ${AGENT_SCOPE}.`, {
          error: 'insufficient_scope',
          hint: `Request a new token with scope=${AGENT_SCOPE} at POST /oauth/token.`,
        });
      }
      return p;
    }
    if (creds.sessionToken) {
      const p = await this.fromSession(call);
      if (p) return p;
    }
    if (mode === 'optional') return null;
    throw this.challenge(call, 'UNAUTHORIZED', 'This operation needs an API key or OAuth access token.', {});
  }

  private async fromBearer(token: string, call: CallInfo): Promise<Principal | null> {
    if (API_KEY_PATTERN.test(token)) {
      const hash = hashSecret(token);
      const known = this.keys.get(hash);
      const now = this.now();
      if (known && known.until > now) {
        // In its second half the entry is renewed by one lookup in the background, so calls with a key in
        // steady use never wait for one; the bound is unchanged (an entry lives KEY_CACHE_MS from its lookup).
        if (known.until - now < KEY_CACHE_MS / 2) this.lookUp(hash).catch(() => {});
        return { userId: known.userId, isAgent: known.isAgent, via: 'key', scopes: [AGENT_SCOPE] };
      }
      const found = await this.lookUp(hash);
      return found ? { userId: found.userId, isAgent: found.isAgent, via: 'key', scopes: [AGENT_SCOPE] } : null;
    }
    const verified = this.opts.accessTokens ? await this.opts.accessTokens.verify(token, this.opts.clock.now()) : null;
    if (!verified) return null;
    // A token for the whole API also works on /mcp (it is under that address); one for /mcp works only there.
    const accepted = call.address.own.flatMap((origin) => {
      const aud = audiences(origin);
      return call.transport === 'mcp' ? [aud.api, aud.mcp] : [aud.api];
    });
    if (!accepted.includes(verified.audience)) return null;
    return { userId: verified.userId, isAgent: verified.isAgent, via: 'oauth', scopes: verified.scopes };
  }

  /** Forgets every remembered key of an account: called when its key is rotated, so the old key fails at once. */
  forgetKeysOf(userId: string): void {
    this.generation += 1;
    // Calls after this take a fresh lookup, not one that began before the rotation.
    this.lookups.clear();
    for (const [hash, k] of this.keys) if (k.userId === userId) this.keys.delete(hash);
  }

  /** One lookup of a key's account at a time; a hit is remembered for KEY_CACHE_MS from when it was sent. */
  private lookUp(hash: string): Promise<{ userId: string; isAgent: boolean } | null> {
    let pending = this.lookups.get(hash);
    if (!pending) {
      const generation = this.generation;
      const sent = this.now();
      pending = this.opts.db
        .query<{ id: string; is_agent: boolean }>('SELECT id, is_agent FROM users WHERE api_key_hash = $1', [hash])
        .then((rows) => {
          const row = rows[0];
          if (!row) {
            this.keys.delete(hash);
            return null;
          }
          const found = { userId: row.id, isAgent: row.is_agent };
          // A key rotated while this lookup ran is not remembered (its answer may predate the rotation).
          if (generation === this.generation) {
            if (this.keys.size >= KEY_CACHE_SIZE) this.keys.clear();
            this.keys.set(hash, { ...found, until: sent + KEY_CACHE_MS });
          }
          return found;
        })
        .finally(() => this.lookups.delete(hash));
      this.lookups.set(hash, pending);
    }
    return pending;
  }

  /**
   * Whose browser budget a public call counts on (src/registry/invoke.ts limitKey): a public method ignores credentials,
   * but a person's page sends its session cookie with every read, and those reads belong to the person's browsing, not
   * to the address. Only a person's valid session without a bearer, read only (a write is never public in the `api` class);
   * never a failure, never an error: a call that names no valid session stays counted per address.
   */
  async sessionForBudget(call: CallInfo): Promise<Principal | null> {
    const { sessionToken, bearer, httpMethod, misplaced } = call.credentials;
    if (!sessionToken || bearer !== undefined || misplaced || isWrite(httpMethod) || !this.opts.sessions) return null;
    const s = await this.opts.sessions.verify(sessionToken, this.opts.clock.now()).catch(() => null);
    // An agent's session keeps the address's count on public reads, as before: the browser budget is a person's.
    return s && !s.isAgent ? { userId: s.userId, isAgent: false, via: 'session', scopes: [], sessionId: s.sessionId } : null;
  }

  private async fromSession(call: CallInfo): Promise<Principal | null> {
    const { sessionToken, origin, httpMethod } = call.credentials;
    if (!sessionToken || !this.opts.sessions) return null;
    if (isWrite(httpMethod) && !isSameOrigin(origin, call.address)) {
      throw new AppError('FORBIDDEN', 'Cross-site request refused: a write authenticated by the session cookie must come from this site.', {
        hint: `Send the request from ${call.address.own[0] ?? call.address.origin} (its Origin or Referer must match), or use an API key in the Authorization header.`,
      });
    }
    const s = await this.opts.sessions.verify(sessionToken, this.opts.clock.now());
    if (!s) return null;
    if (s.renewed) call.effects = { ...call.effects, setSession: { token: sessionToken, maxAgeS: SESSION_LIFETIME_S } };
    return { userId: s.userId, isAgent: s.isAgent, via: 'session', scopes: [], sessionId: s.sessionId };
  }

  private async countFailure(call: CallInfo): Promise<void> {
    await this.opts.limiter?.consume('api', `ip:${call.ip}`, call.ip);
  }

  /** An error with an RFC 6750 / RFC 9728 challenge: where to learn how to get a token, and what was wrong. */
  private challenge(
    call: CallInfo,
    code: 'UNAUTHORIZED' | 'FORBIDDEN',
    message: string,
    extra: { error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope'; hint?: string },
  ): AppError {
    const params = [`resource_metadata="${resourceMetadataUrl(call.address.origin, call.transport)}"`];
    if (extra.error) params.push(`error="${extra.error}"`, `error_description="${message.replace(/["\\]/g, '')}"`);
    if (extra.error === 'insufficient_scope') params.push(`scope="${AGENT_SCOPE}"`);
    return new AppError(code, message, {
      hint:
        extra.hint ??
        'Send Authorization: Bearer <API_KEY or access token>. Register with isAgent true at POST /api/auth/register to get a key; exchange it for a token at POST /oauth/token.',
      headers: { 'WWW-Authenticate': `Bearer ${params.join(', ')}` },
    });
  }
}
