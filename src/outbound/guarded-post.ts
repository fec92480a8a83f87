import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

/**
 * Outbound HTTP to URLs users supply (webhooks), guarded against server-side request forgery: a target must be
 * http(s) without credentials and every address it is reached at must be public. The address is checked where the
 * socket connects (the `lookup` the request uses), so a name that resolved to a public address when it was
 * registered and to a private one now (DNS rebinding) is refused at the connection.
 *
 * Stand-in written against the API of the shared guard announced for src/outbound/ (same names and signatures);
 * when that lands, it replaces this file.
 */
export class OutboundRefused extends Error {
  constructor(
    readonly code: 'ADDRESS_NOT_ALLOWED' | 'INVALID_URL',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

export interface GuardOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Name resolution (default dns.lookup); tests stub it to play DNS rebinding. */
  lookup?: LookupFunction;
}

/** Loopback, private, shared, link-local (cloud metadata), multicast, reserved and unspecified ranges. */
const BLOCKED = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(addr, prefix, 'ipv4');
for (const [addr, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(addr, prefix, 'ipv6');

/** Whether an address may be connected to; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  const family = net.isIP(address);
  if (family === 0) return false;
  return !BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function parseTarget(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutboundRefused('INVALID_URL', 'Not a valid absolute URL.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OutboundRefused('INVALID_URL', 'Only http and https URLs are allowed.');
  if (u.username || u.password) throw new OutboundRefused('INVALID_URL', 'URLs with credentials are not allowed.');
  return u;
}

const hostOf = (u: URL) => u.hostname.replace(/^\[(.*)\]$/, '$1');

function refusedAddress(host: string, address: string): OutboundRefused {
  const shown = host === address ? address : `${host} (${address})`;
  return new OutboundRefused('ADDRESS_NOT_ALLOWED', `${shown} is a loopback, private, link-local or reserved address.`);
}

function resolveAll(lookup: LookupFunction, host: string): Promise<Array<{ address: string; family: number }>> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (err, addresses) => {
      if (err) reject(new OutboundRefused('INVALID_URL', `${host} does not resolve.`));
      else resolve(addresses as unknown as Array<{ address: string; family: number }>);
    });
  });
}

/** Registration-time check: an http(s) URL without credentials whose every address is allowed. */
export async function checkTargetUrl(url: string, allowPrivate: boolean, lookup: LookupFunction = dns.lookup): Promise<void> {
  const u = parseTarget(url);
  if (allowPrivate) return;
  const host = hostOf(u);
  const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await resolveAll(lookup, host);
  if (addresses.length === 0) throw new OutboundRefused('INVALID_URL', `${host} does not resolve.`);
  for (const a of addresses) if (!isPublicAddress(a.address)) throw refusedAddress(host, a.address);
}

/** A lookup that hands the socket only allowed addresses (the address actually connected to is checked). */
function guardedLookup(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? (address as Array<{ address: string }>) : [{ address: address as string }];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (bad) return callback(refusedAddress(hostname, bad.address), address, family);
      callback(null, address, family);
    });
  };
}

/** Largest answer body read; the rest is dropped (a webhook's answer is only its status). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs `body` to `url`; resolves with the answer's status and (first 64 KiB of) body, whatever the status.
 * Throws OutboundRefused for a refused target, another Error for a network failure or when `timeoutMs` passes.
 */
export async function guardedPost(url: string, body: string, headers: Record<string, string>, opts: GuardOptions): Promise<{ status: number; body: string }> {
  const u = parseTarget(url);
  const host = hostOf(u);
  if (!opts.allowPrivate && net.isIP(host) && !isPublicAddress(host)) throw refusedAddress(host, host);
  const lookup = opts.allowPrivate ? (opts.lookup ?? dns.lookup) : guardedLookup(opts.lookup ?? dns.lookup);
  const client = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      u,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), ...headers },
        lookup,
        agent: false,
        signal: AbortSignal.timeout(opts.timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES) }));
        res.on('error', reject);
      },
    );
    req.on('error', (err: Error) => {
      if (err instanceof OutboundRefused) reject(err);
      else if (err.name === 'AbortError' || err.name === 'TimeoutError') reject(new Error(`timed out after ${opts.timeoutMs} ms`));
      else reject(err);
    });
    req.end(body);
  });
}
