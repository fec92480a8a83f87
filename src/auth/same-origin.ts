import type { SiteAddress } from './caller';

/** HTTP methods that never change state: a cookie may authenticate them from anywhere (SameSite=Lax allows it). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isWrite(httpMethod: string | undefined): boolean {
  // Unknown means a non-HTTP caller: treat it as a write, the strict side.
  return !httpMethod || !SAFE_METHODS.has(httpMethod.toUpperCase());
}

/**
 * Whether an Origin or Referer header names exactly the origin (scheme, host and port) of the address the request
 * reached, and that address is one of the service's own (BASE_URL when set). Used as the CSRF defence for
 * cookie-authenticated writes, on top of SameSite=Lax: an opaque origin ("null"), an unparseable value, or a
 * request that reached a name the service does not answer to never matches.
 */
export function isSameOrigin(originOrReferer: string | undefined, address: SiteAddress): boolean {
  if (!originOrReferer || originOrReferer === 'null' || !address.own.includes(address.origin)) return false;
  try {
    return new URL(originOrReferer).origin === new URL(address.origin).origin;
  } catch {
    return false;
  }
}
