import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A target the service will not send to: a bad URL, or an address that is not public. Nothing was sent. */
export class OutboundRefused extends Error {
  constructor(
    readonly code: 'ADDRESS_NOT_ALLOWED' | 'INVALID_URL',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution; injectable so tests can play a DNS server that changes its answer (rebinding). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundOptions {
  /** The operator's OUTBOUND_ALLOW_PRIVATE: loopback, private and link-local targets are allowed (tests, private networks). */
  allowPrivate: boolean;
  /** The whole exchange, connect to last byte. */
  timeoutMs: number;
  resolve?: Resolve;
}

export interface OutboundResponse {
  status: number;
  /** The first MAX_BODY bytes of the answer, as text (kept for the delivery's attempt log). */
  body: string;
}

const MAX_BODY = 4096;

const systemResolve: Resolve = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })) as ResolvedAddress[];

/**
 * Only public unicast addresses: not loopback, private (RFC 1918, unique-local), link-local (which holds the cloud
 * metadata address 169.254.169.254), carrier-grade NAT, multicast, reserved or translated ranges. An IPv4-mapped IPv6
 * address counts as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

function parseTarget(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutboundRefused('INVALID_URL', 'url is not an absolute URL.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OutboundRefused('INVALID_URL', 'url must be http or https.');
  if (u.username || u.password) throw new OutboundRefused('INVALID_URL', 'url must not carry credentials.');
  return u;
}

/** The URL's host as a bare address when it is an IP literal (URL keeps IPv6 in brackets). */
function literalAddress(u: URL): string | undefined {
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : undefined;
}

async function allowedAddresses(u: URL, opts: OutboundOptions): Promise<ResolvedAddress[]> {
  const literal = literalAddress(u);
  const found = literal
    ? [{ address: literal, family: (ipaddr.parse(literal).kind() === 'ipv6' ? 6 : 4) as 4 | 6 }]
    : await (opts.resolve ?? systemResolve)(u.hostname).catch(() => {
        throw new OutboundRefused('INVALID_URL', `url's host ${u.hostname} does not resolve.`);
      });
  const allowed = opts.allowPrivate ? found : found.filter((a) => isPublicAddress(a.address));
  if (!allowed.length) throw new OutboundRefused('ADDRESS_NOT_ALLOWED', `url's host ${u.hostname} is not a public address; the service does not send there.`);
  return allowed;
}

/** At registration: the URL is well formed and its host resolves to an address the service may send to. */
export async function checkTargetUrl(url: string, opts: Pick<OutboundOptions, 'allowPrivate' | 'resolve'>): Promise<void> {
  await allowedAddresses(parseTarget(url), { ...opts, timeoutMs: 0 });
}

/**
 * POSTs `body` to a URL a user gave, refusing non-public targets on the address actually connected to: the name is
 * resolved once, only allowed addresses are offered to the socket (so a DNS answer that changed since registration —
 * rebinding — cannot reach inside), and the connected peer is checked once more. No redirects are
 * followed and no proxy from the environment is used.
 */
export async function guardedPost(url: string, body: string, headers: Record<string, string>, opts: OutboundOptions): Promise<OutboundResponse> {
  const u = parseTarget(url);
  const addresses = await allowedAddresses(u, opts);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
  const client = u.protocol === 'https:' ? https : http;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const req = client.request(
      u,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_BODY) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8') });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        const peer = socket.remoteAddress;
        if (!opts.allowPrivate && (!peer || !isPublicAddress(peer)))
          req.destroy(new OutboundRefused('ADDRESS_NOT_ALLOWED', `connected to ${peer ?? 'an unknown address'}, which is not public.`));
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
