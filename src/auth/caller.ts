/**
 * Who is calling and what they presented: the vocabulary the authenticator works in. The registry's method
 * context re-exports these (src/registry/context.ts), so auth stays below the registry and never imports it.
 */

export type Transport = 'rest' | 'jsonrpc' | 'mcp' | 'a2a' | 'internal';

/** What a method requires of its caller (declared on the method as `auth`). */
export type AuthMode = 'public' | 'key' | 'session' | 'optional';

/** Who is calling. `via` tells which door they came through. */
export interface Principal {
  userId: string;
  isAgent: boolean;
  via: 'key' | 'oauth' | 'session';
  scopes: string[];
  sessionId?: string;
}

/** What a transport extracts from its request; the pipeline turns it into a Principal. */
export interface Credentials {
  bearer?: string;
  sessionToken?: string;
  /** A credential offered somewhere it must never be (query string, body): refused with a hint. */
  misplaced?: string;
  /** The Origin or Referer of a cookie-authenticated write, for CSRF checks. */
  origin?: string;
  /** The HTTP method (GET, POST…): the CSRF check applies to cookie-authenticated writes only. */
  httpMethod?: string;
}

/** The service's address as one request reached it (src/transports/public-origin.ts builds it). */
export interface SiteAddress {
  /** The origin documents, links and hints name: BASE_URL when set, else the address the request reached. */
  origin: string;
  /**
   * The service's own origins this request may use credentials for: an access token's audience must name one,
   * and a cookie write must come from `origin` and `origin` must be one. Empty when the request named an
   * address that is not the service's.
   */
  own: readonly string[];
}

export interface CallInfo {
  transport: Transport;
  requestId: string;
  ip: string;
  credentials: Credentials;
  address: SiteAddress;
  idempotencyKey?: string;
  /**
   * A conditional read (HTTP If-None-Match): true when the caller already holds this answer. The invoke pipeline
   * then counts the call as a revalidation, not against the method's rate limit (src/registry/invoke.ts).
   */
  holds?: (result: unknown) => boolean;
  /** What a method asks the transport to do beside its answer: session cookie changes, the replay header. */
  effects?: CallEffects;
  /**
   * The request's vocabulary (issue 51 item 3): whether it asked for the strict vocabulary, and the deprecated fields its
   * calls used or were answered with. One object shared by every call of the request (a batch's calls are copies of
   * its CallInfo), so the transport sets the request's Deprecation and Sunset headers from it.
   */
  vocabulary?: VocabularyUse;
}

export interface VocabularyUse {
  /** `Prefer: strict-vocabulary` (or the MCP / JSON-RPC address's `?vocabulary=strict`): answers without deprecated fields. */
  strict: boolean;
  /** The earliest announcement and sunset (UTC dates) of the deprecated fields used; absent when none. */
  deprecation?: { since: string; sunset: string };
  /** A deprecated method was called (a venue alias): its dates, announced in strict mode too (the method is still there). */
  method?: { since: string; sunset: string };
}

export interface CallEffects {
  setSession?: { token: string; maxAgeS: number };
  clearSession?: boolean;
  /** The answer is a stored one, replayed for a repeated Idempotency-Key (REST says so in Idempotent-Replayed: true). */
  replayed?: boolean;
  /** The caller already holds this answer (its `holds` said so): REST answers 304 Not Modified with no body. */
  notModified?: boolean;
}
