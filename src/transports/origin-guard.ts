import type { Request } from 'express';
import type { SiteAddress } from '../registry/context';
import { LOOPBACK_NAMES } from './public-origin';

/**
 * DNS-rebinding protection (the MCP transport spec requires it): a browser page on another site must not
 * reach this endpoint through a name that resolves to us. The Host, and the Origin when a browser sends one,
 * must name the host of one of the service's own addresses (BASE_URL when set; see public-origin.ts) or a
 * loopback name; the port does not matter (proxies and local runs differ). Returns the problem, or null when
 * the request may proceed.
 */
export function originProblem(req: Pick<Request, 'headers'>, address: Pick<SiteAddress, 'own'>): string | null {
  const allowed = new Set([...address.own.map((origin) => new URL(origin).hostname), ...LOOPBACK_NAMES]);
  const hostnameOf = (value: string, withScheme: boolean): string | null => {
    try {
      const url = new URL(withScheme ? value : `http://${value}`);
      if (withScheme && url.protocol !== 'http:' && url.protocol !== 'https:') return null;
      return url.hostname;
    } catch {
      return null;
    }
  };
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
}
