import type { Request } from 'express';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * DNS-rebinding protection (the MCP transport spec requires it): a browser page on another site must not
 * reach this endpoint through a name that resolves to us. The Host, and the Origin when a browser sends one,
 * must name BASE_URL's host or a loopback name; the port does not matter (proxies and local runs differ).
 * Returns the problem, or null when the request may proceed.
 */
export function originGuard(baseUrl: string): (req: Request) => string | null {
  const allowed = new Set([new URL(baseUrl).hostname, ...LOOPBACK]);
  const hostnameOf = (value: string, withScheme: boolean): string | null => {
    try {
      const url = new URL(withScheme ? value : `http://${value}`);
      if (withScheme && url.protocol !== 'http:' && url.protocol !== 'https:') return null;
      return url.hostname;
    } catch {
      return null;
    }
  };
  return (req) => {
    const host = req.headers.host;
    if (!host) return 'Missing Host header';
    const hostName = hostnameOf(host, false);
    if (!hostName || !allowed.has(hostName)) return `Host ${host} is not allowed`;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const originName = hostnameOf(origin, true);
      if (!originName || !allowed.has(originName)) return `Origin ${origin} is not allowed`;
    }
    return null;
  };
}
