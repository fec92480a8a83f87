import type { Request } from 'express';
import { testConfig } from '../../src/config';
import { perOrigin, siteAddressOf } from '../../src/transports/public-origin';

/** A request as express gives it: headers (lower-case), get(), and the socket it arrived on. */
function req(headers: Record<string, string>, localPort = 3000): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: lower, get: (name: string) => lower[name.toLowerCase()], socket: { localPort } } as unknown as Request;
}

const unset = testConfig();
const proxied = (hops: number) => testConfig({ TRUST_PROXY: hops });

describe('the address a request reached (src/transports/public-origin.ts)', () => {
  test('when BASE_URL is set, then it is the address and the only own one, whatever Host and the forwarded headers say', () => {
    const config = testConfig({ BASE_URL: 'https://paper.example/', TRUST_PROXY: 1 });
    const a = siteAddressOf(req({ host: 'evil.example', 'x-forwarded-host': 'other.example' }), config);
    expect(a).toEqual({ origin: 'https://paper.example', own: ['https://paper.example'] });
  });

  test.each([
    ['localhost:3000', 'http://localhost:3000'],
    ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['[::1]:3000', 'http://[::1]:3000'],
    ['LOCALHOST:03000', 'http://localhost:3000'],
  ])('when Host is %s on the listening port, then the loopback names of that port are own, the reached one first', (host, origin) => {
    const a = siteAddressOf(req({ host }), unset);
    expect(a.origin).toBe(origin);
    expect(a.own[0]).toBe(origin);
    expect([...a.own].sort()).toEqual(['http://127.0.0.1:3000', 'http://[::1]:3000', 'http://localhost:3000']);
  });

  test.each([
    ['a loopback name on another port', 'localhost:4000'],
    ['a loopback name on the default port', '127.0.0.1'],
    ['another name', 'paper.example:3000'],
    ['a LAN address', '192.168.1.5:3000'],
  ])('when Host is %s and no proxy is trusted, then it is named but not own', (_label, host) => {
    const a = siteAddressOf(req({ host }), unset);
    expect(a.origin).toBe(`http://${host}`);
    expect(a.own).toEqual([]);
  });

  test.each([
    ['a path', 'localhost:3000/mcp'],
    ['user info', 'me@localhost:3000'],
    ['a port out of range', 'localhost:70000'],
    ['a space', 'local host'],
    ['a query', 'localhost:3000?x'],
    ['nothing', ''],
  ])('when Host holds %s, then the service names localhost and grants nothing', (_label, host) => {
    expect(siteAddressOf(req(host ? { host } : {}), unset)).toEqual({ origin: 'http://localhost:3000', own: [] });
  });

  test('when a trusted proxy reports X-Forwarded-Host and -Proto, then that address is named and own', () => {
    const a = siteAddressOf(req({ host: '10.0.0.5:3000', 'x-forwarded-host': 'Paper.Example', 'x-forwarded-proto': 'https' }), proxied(1));
    expect(a).toEqual({ origin: 'https://paper.example', own: ['https://paper.example'] });
  });

  test('when several proxies appended, then the entry of the outermost trusted one counts, not the client-written first one', () => {
    const headers = { host: 'app:3000', 'x-forwarded-host': 'evil.example, paper.example', 'x-forwarded-proto': 'http, https' };
    expect(siteAddressOf(req(headers), proxied(1)).origin).toBe('https://paper.example');
    expect(siteAddressOf(req(headers), proxied(2)).origin).toBe('http://evil.example');
  });

  test('when only RFC 7239 Forwarded is sent, then its host and proto are read, quoted values too', () => {
    const a = siteAddressOf(
      req({ host: 'app:3000', forwarded: 'for=192.0.2.1;host=evil.example, for="[2001:db8::1]";proto=https;host="paper.example:8443"' }),
      proxied(1),
    );
    expect(a.origin).toBe('https://paper.example:8443');
  });

  test('when a trusted proxy passes Host through unchanged (no forwarded host), then Host is the public name', () => {
    expect(siteAddressOf(req({ host: 'paper.example', 'x-forwarded-proto': 'https' }), proxied(1)).origin).toBe('https://paper.example');
  });

  test('when a trusted proxy reports a scheme other than http(s) or a malformed host, then nothing is granted', () => {
    expect(siteAddressOf(req({ host: 'app:3000', 'x-forwarded-proto': 'ftp' }), proxied(1)).own).toEqual([]);
    expect(siteAddressOf(req({ host: 'app:3000', 'x-forwarded-host': 'a/b' }), proxied(1)).own).toEqual([]);
  });

  test('when no proxy is trusted, then forwarded headers change nothing', () => {
    const a = siteAddressOf(
      req({ host: '127.0.0.1:3000', 'x-forwarded-host': 'paper.example', 'x-forwarded-proto': 'https', forwarded: 'host=x.example' }),
      unset,
    );
    expect(a.origin).toBe('http://127.0.0.1:3000');
  });
});

describe('documents cached per origin', () => {
  test('when origins come and go, then each is built once while kept, and the least recently used is dropped beyond the bound', () => {
    const built: string[] = [];
    const get = perOrigin((o) => {
      built.push(o);
      return { o };
    }, 2);
    expect(get('a')).toBe(get('a'));
    get('b');
    get('a'); // a is now the most recent
    get('c'); // drops b
    get('a');
    get('b');
    expect(built).toEqual(['a', 'b', 'c', 'b']);
  });
});
