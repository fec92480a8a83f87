import type { Request } from 'express';
import { originProblem } from '../../src/transports/origin-guard';

const check = (headers: Record<string, string>) => originProblem({ headers } as unknown as Request, { own: ['https://trade.example.com'] });

describe('DNS-rebinding guard for /mcp', () => {
  test.each([
    ['BASE_URL host', { host: 'trade.example.com' }],
    ['BASE_URL host on another port, with its own origin', { host: 'trade.example.com:8443', origin: 'https://trade.example.com' }],
    ['localhost on any port', { host: 'localhost:3999', origin: 'http://localhost:5173' }],
    ['127.0.0.1', { host: '127.0.0.1:4000', origin: 'http://127.0.0.1:4000' }],
    ['IPv6 loopback', { host: '[::1]:4000', origin: 'http://[::1]:9000' }],
    ['a native client (no Origin)', { host: 'TRADE.example.com' }],
  ])('when the request names %s, then it passes', (_label, headers) => {
    expect(check(headers)).toBeNull();
  });

  test.each([
    ['a foreign Host', { host: 'attacker.example' }],
    ['a rebinding name that only resolves to us', { host: 'trade.example.com.attacker.example' }],
    ['no Host at all', {}],
    ['a foreign Origin', { host: 'localhost:3000', origin: 'https://evil.example' }],
    ['the opaque "null" Origin (sandboxed frames, files)', { host: 'localhost:3000', origin: 'null' }],
    ['a non-web Origin scheme', { host: 'localhost:3000', origin: 'chrome-extension://abc' }],
  ])('when the request carries %s, then it is refused', (_label, headers) => {
    expect(check(headers)).toEqual(expect.any(String));
  });

  test("when the request reached a name that is not the service's (no own address), then only loopback names pass", () => {
    const none = (headers: Record<string, string>) => originProblem({ headers } as unknown as Request, { own: [] });
    expect(none({ host: 'localhost:3000' })).toBeNull();
    expect(none({ host: 'attacker.example:3000' })).toEqual(expect.any(String));
    expect(none({ host: 'localhost:3000', origin: 'http://attacker.example:3000' })).toEqual(expect.any(String));
  });
});
