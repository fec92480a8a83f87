import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { CallInfo, Credentials, Transport, VocabularyUse } from '../registry/context';
import { siteAddressOf, type AddressConfig } from './public-origin';

export const SESSION_COOKIE = 'svc.session-token';

const MISPLACED_KEYS = ['apiKey', 'api_key', 'access_token', 'accessToken', 'key', 'token', 'client_secret'];

/** The request id given by the caller when sane, else a new one; always echoed as X-Request-Id. */
export function requestIdOf(req: Request, res: Response): string {
  const existing = res.getHeader('X-Request-Id');
  if (typeof existing === 'string') return existing;
  const given = req.get('x-request-id');
  const id = given && /^[\w.-]{8,80}$/.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** What the invoke pipeline needs from an HTTP request; transports share it so credentials are read one way. */
export function credentialsOf(req: Request): Credentials {
  const creds: Credentials = {};
  const auth = req.get('authorization');
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    creds.bearer = m ? m[1] : '';
  }
  const session = cookieValue(req.get('cookie'), SESSION_COOKIE);
  if (session) creds.sessionToken = session;
  const query = req.query as Record<string, unknown>;
  if (MISPLACED_KEYS.some((k) => typeof query?.[k] === 'string' && /^svc_|^eyJ|^sat_/.test(String(query[k])))) creds.misplaced = 'query string';
  if (carriesCredential(req.body)) creds.misplaced = 'request body';
  const origin = req.get('origin') ?? req.get('referer');
  if (origin) creds.origin = origin;
  creds.httpMethod = req.method;
  return creds;
}

/** True when a body (or JSON-RPC params) holds an API key or token under a credential-like name: it belongs in the header. */
export function carriesCredential(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const obj = body as Record<string, unknown>;
  return MISPLACED_KEYS.some((k) => typeof obj[k] === 'string' && /^svc_|^sat_/.test(obj[k]));
}

export function callInfoFrom(req: Request, res: Response, transport: Transport, config: AddressConfig): CallInfo {
  const idem = req.get('idempotency-key');
  return {
    transport,
    requestId: requestIdOf(req, res),
    ip: req.ip ?? req.socket.remoteAddress ?? '0.0.0.0',
    credentials: credentialsOf(req),
    address: siteAddressOf(req, config),
    ...(idem ? { idempotencyKey: idem } : {}),
    vocabulary: { strict: wantsStrictVocabulary(req, transport) },
  };
}

/**
 * `Prefer: strict-vocabulary` (RFC 7240) on any surface; on MCP and JSON-RPC, whose hosts cannot always set a header,
 * also `?vocabulary=strict` in the address (REST's query string is the method's input, so not there).
 */
export function wantsStrictVocabulary(req: Request, transport: Transport): boolean {
  const prefer = req.get('prefer') ?? '';
  if (prefer.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'strict-vocabulary')) return true;
  return transport !== 'rest' && (req.query as Record<string, unknown> | undefined)?.vocabulary === 'strict';
}

/**
 * The request's vocabulary headers: `Preference-Applied: strict-vocabulary` when honoured (with a deprecated method's
 * `Deprecation` and `Sunset`, a venue alias); else, when an answer carried
 * or a call sent a deprecated field, `Deprecation: @<unix seconds>` (RFC 9745) and `Sunset: <HTTP-date>` (RFC 8594)
 * with the earliest dates (docs/glossary.md lists each field's). `Vary: Prefer` either way: the answer depends on it.
 */
export function applyVocabulary(res: Response, use: VocabularyUse | undefined): void {
  if (!use) return;
  if (use.strict) {
    res.setHeader('Preference-Applied', 'strict-vocabulary');
    res.vary('Prefer');
    // A deprecated method answers in strict mode too: its fields are all current, but the method itself goes at its sunset.
    if (use.method) announce(res, use.method);
    return;
  }
  if (!use.deprecation) return;
  announce(res, use.deprecation);
  res.vary('Prefer');
}

function announce(res: Response, d: { since: string; sunset: string }): void {
  res.setHeader('Deprecation', `@${Math.floor(Date.parse(`${d.since}T00:00:00Z`) / 1000)}`);
  res.setHeader('Sunset', new Date(`${d.sunset}T00:00:00Z`).toUTCString());
}
