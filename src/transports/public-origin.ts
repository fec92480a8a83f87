import type { Request } from 'express';
import type { Config } from '../config';
import type { SiteAddress } from '../registry/context';

/**
 * The service's public address, per request: the one place that reads BASE_URL, Host and the forwarded headers.
 *
 * - BASE_URL set: it alone is the address, whatever the request says.
 * - BASE_URL unset: the address the request reached. With TRUST_PROXY, the proxy's report (X-Forwarded-Host and
 *   X-Forwarded-Proto, else RFC 7239 Forwarded, else Host) is an address of the service: the operator said every
 *   request comes through that proxy. Without it, only the Host header counts, and it is the service's own
 *   address only when it is a loopback name (localhost, 127.0.0.1, [::1]) on the port the connection arrived on:
 *   those names all reach this one listener, so they are one address. Any other Host is named in documents and
 *   links (it is where the reader is) but grants nothing: no token is honoured and no cookie write accepted there.
 */

export type AddressConfig = Pick<Config, 'BASE_URL' | 'TRUST_PROXY' | 'PORT'>;

export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** host[:port]: a DNS name or IPv4 address, or a bracketed IPv6 literal; never a user, path, query or space. */
const HOST_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

const fixed = new WeakMap<AddressConfig, SiteAddress>();
const byRequest = new WeakMap<Request, SiteAddress>();

/** The address this request reached, computed once per request. */
export function siteAddressOf(req: Request, config: AddressConfig): SiteAddress {
  if (config.BASE_URL) {
    let address = fixed.get(config);
    if (!address) fixed.set(config, (address = { origin: config.BASE_URL, own: [config.BASE_URL] }));
    return address;
  }
  let address = byRequest.get(req);
  if (!address) byRequest.set(req, (address = reachedAddress(req, config)));
  return address;
}

/**
 * The address for what a request says (Host, the forwarded headers, the local port), remembered per config: most
 * requests say the same few things, and working it out (URL parsing) costs tens of microseconds.
 */
const byInputs = new WeakMap<AddressConfig, (inputs: string) => SiteAddress>();

function reachedAddress(req: Request, config: AddressConfig): SiteAddress {
  const hops = config.TRUST_PROXY ?? 0;
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const parts = [String(encrypted), String(req.socket.localPort ?? config.PORT), req.headers.host ?? ''];
  if (hops > 0) parts.push(req.get('x-forwarded-host') ?? '', req.get('x-forwarded-proto') ?? '', req.get('forwarded') ?? '');
  let compute = byInputs.get(config);
  if (!compute) byInputs.set(config, (compute = memoized((inputs) => addressFor(inputs.split('\n'), hops), 64)));
  return compute(parts.join('\n'));
}

/** The origin to name in documents and links for this request. */
export function publicOriginOf(req: Request, config: AddressConfig): string {
  return siteAddressOf(req, config).origin;
}

/** The address named where no request is at hand (the start-up log, generated files): BASE_URL or localhost. */
export function defaultOrigin(config: Pick<Config, 'BASE_URL' | 'PORT'>): string {
  return config.BASE_URL ?? `http://localhost:${config.PORT}`;
}

/** The address from [encrypted, local port, Host, and with trusted proxies X-Forwarded-Host, -Proto, Forwarded]. */
function addressFor([encrypted, localPort, hostHeader, xfHost, xfProto, rfc7239]: string[], hops: number): SiteAddress {
  const forwarded = hops > 0 ? forwardedOf(xfHost ?? '', xfProto ?? '', rfc7239 ?? '', hops) : {};
  const proto = forwarded.proto ?? (encrypted === 'true' ? 'https' : 'http');
  const listening = Number(localPort);
  const url = parseOrigin(proto, forwarded.host ?? hostHeader);
  // No usable Host (HTTP/1.0 may omit it; anything else is malformed): name localhost, but grant nothing.
  if (!url) return { origin: `http://localhost:${listening}`, own: [] };
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const loopback = LOOPBACK_NAMES.includes(url.hostname) && port === listening;
  const own = loopback ? loopbackOrigins(proto, port, url.origin) : hops > 0 ? [url.origin] : [];
  return { origin: url.origin, own };
}

/** The loopback names on one port, the reached one first. */
function loopbackOrigins(proto: string, port: number, first: string): string[] {
  const all = LOOPBACK_NAMES.map((name) => new URL(`${proto}://${name}:${port}`).origin);
  return [first, ...all.filter((o) => o !== first)];
}

/** `proto://host` as a URL, or null when the host is not a bare host[:port] or the scheme is not http(s). */
function parseOrigin(proto: string, host: string | undefined): URL | null {
  if (!host || !HOST_PATTERN.test(host) || (proto !== 'http' && proto !== 'https')) return null;
  try {
    return new URL(`${proto}://${host}`);
  } catch {
    return null; // a port above 65535, a malformed IPv6 literal
  }
}

/**
 * What the trusted proxies report. Each hop may append to a list; the entry `hops` from the end is the one the
 * outermost trusted proxy wrote (earlier entries came from the client), as express reads X-Forwarded-For.
 * X-Forwarded-Host and X-Forwarded-Proto win over Forwarded (what nginx and most balancers send).
 */
function forwardedOf(xfHost: string, xfProto: string, forwarded: string, hops: number): { host?: string; proto?: string } {
  const pick = <T>(list: T[]): T | undefined => list[Math.max(0, list.length - hops)];
  const values = (header: string): string[] =>
    header
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  const rfc7239 = pick(forwardedElements(forwarded));
  const host = pick(values(xfHost)) ?? rfc7239?.host;
  const proto = pick(values(xfProto))?.toLowerCase() ?? rfc7239?.proto?.toLowerCase();
  return { ...(host ? { host } : {}), ...(proto ? { proto } : {}) };
}

/** RFC 7239 `Forwarded: for=…;host=…;proto=…, for=…`: each element's pairs, quoted values unquoted. */
function forwardedElements(header: string): Array<Record<string, string>> {
  if (!header) return [];
  const elements: Array<Record<string, string>> = [];
  for (const element of header.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
    const pairs: Record<string, string> = {};
    for (const pair of element.match(/(?:[^;"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const value = pair.slice(eq + 1).trim();
      pairs[pair.slice(0, eq).trim().toLowerCase()] = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
    }
    elements.push(pairs);
  }
  return elements;
}

/**
 * A builder memoized per origin, for documents that name the service's address. Bounded: with BASE_URL unset the
 * origin comes from the request, so a stream of made-up Host names must not grow memory; the least recently used
 * origin is dropped (it is rebuilt if it comes back).
 */
export function perOrigin<T>(build: (origin: string) => T, max = 8): (origin: string) => T {
  return memoized(build, max);
}

/** `build` memoized by its key, keeping the `max` most recently used results. */
function memoized<T>(build: (key: string) => T, max: number): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = build(key);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    } else {
      cache.delete(key); // re-inserted below: Map order is recency
    }
    cache.set(key, value);
    return value;
  };
}
