import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { publicOriginOf, type AddressConfig } from '../transports/public-origin';

/** Headers a browser-based agent may send, and those it may read, on a cross-origin call. */
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Idempotency-Key, If-None-Match, X-Request-Id, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const EXPOSE_HEADERS = 'Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, X-Request-Id, Mcp-Session-Id, Location, ETag';

/** Pages are server-rendered with no inline script; nothing may frame them. JSON answers ignore this header. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Security headers on every response (static, so they cost nothing per request), and CORS for browser-based
 * agents: any origin may call the API, the documents and the token endpoint with a bearer key or token, but
 * never with credentials (no Access-Control-Allow-Credentials, and `*` forbids them anyway), so a page
 * elsewhere can never act with a visitor's session cookie.
 */
export function hardening(config: AddressConfig): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // HSTS only where the service's address is https: BASE_URL, or (unset) what a trusted proxy reports.
    const hsts = publicOriginOf(req, config).startsWith('https://');
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    if (hsts) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');

    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
