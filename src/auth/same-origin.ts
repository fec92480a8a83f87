/** HTTP methods that never change state: a cookie may authenticate them from anywhere (SameSite=Lax allows it). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isWrite(httpMethod: string | undefined): boolean {
  // Unknown means a non-HTTP caller: treat it as a write, the strict side.
  return !httpMethod || !SAFE_METHODS.has(httpMethod.toUpperCase());
}

/**
 * Whether an Origin or Referer header names exactly BASE_URL's origin (scheme, host and port). Used as the
 * CSRF defence for cookie-authenticated writes, on top of SameSite=Lax: an opaque origin ("null") or an
 * unparseable value never matches.
 */
export function isSameOrigin(originOrReferer: string | undefined, baseUrl: string): boolean {
  if (!originOrReferer || originOrReferer === 'null') return false;
  try {
    return new URL(originOrReferer).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}
