import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkTargetUrl, guardedPost, isPublicAddress, OutboundRefused, type Resolve } from '../../src/outbound/guarded-post';

/** A local receiver that records what reached it. */
async function receiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, r) => r.end('ok')) {
  const hits: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { hits, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const refused = (code: string) => expect.objectContaining({ name: 'OutboundRefused', code });

describe('isPublicAddress', () => {
  test.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['224.0.0.1', false],
    ['not an ip', false],
    ['93.184.216.34', true],
    ['2606:4700::6810:84e5', true],
    ['::ffff:93.184.216.34', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('checkTargetUrl', () => {
  const publicDns: Resolve = async () => [{ address: '93.184.216.34', family: 4 }];

  test.each(['http://127.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/', 'http://[::1]/', 'http://[::ffff:7f00:1]/'])(
    'when %s is registered without the setting, then it is refused as not public',
    async (url) => {
      await expect(checkTargetUrl(url, { allowPrivate: false, resolve: publicDns })).rejects.toEqual(refused('ADDRESS_NOT_ALLOWED'));
    },
  );

  test('when a name resolves only to private addresses, then it is refused; with one public address among them, the public one passes', async () => {
    await expect(
      checkTargetUrl('https://hooks.example/x', { allowPrivate: false, resolve: async () => [{ address: '192.168.0.5', family: 4 }] }),
    ).rejects.toEqual(refused('ADDRESS_NOT_ALLOWED'));
    await expect(checkTargetUrl('https://hooks.example/x', { allowPrivate: false, resolve: publicDns })).resolves.toBeUndefined();
  });

  test.each(['ftp://example.com/', 'not a url', 'https://user:pw@example.com/', '/relative'])(
    'when %s is given, then it is refused as an invalid url',
    async (url) => {
      await expect(checkTargetUrl(url, { allowPrivate: false, resolve: publicDns })).rejects.toEqual(refused('INVALID_URL'));
    },
  );

  test('when the operator allows private targets, then loopback passes', async () => {
    await expect(checkTargetUrl('http://127.0.0.1:9/x', { allowPrivate: true })).resolves.toBeUndefined();
  });
});

describe('guardedPost', () => {
  test('when the target is allowed, then the body and headers arrive and the answer comes back', async () => {
    const r = await receiver((_q, res) => {
      res.statusCode = 202;
      res.end('accepted');
    });
    try {
      const out = await guardedPost(`http://127.0.0.1:${r.port}/hook`, '{"a":1}', { 'webhook-id': 'msg_1' }, { allowPrivate: true, timeoutMs: 2000 });
      expect(out).toEqual({ status: 202, body: 'accepted' });
      expect(r.hits).toHaveLength(1);
      expect(r.hits[0]!.body).toBe('{"a":1}');
      expect(r.hits[0]!.headers['webhook-id']).toBe('msg_1');
      expect(r.hits[0]!.headers['content-type']).toBe('application/json');
    } finally {
      await r.close();
    }
  });

  test('when a name that passed registration now resolves to loopback (DNS rebinding), then nothing is sent', async () => {
    const r = await receiver();
    try {
      let answer = '93.184.216.34';
      const rebinding: Resolve = async () => [{ address: answer, family: 4 }];
      await checkTargetUrl(`http://hooks.example:${r.port}/x`, { allowPrivate: false, resolve: rebinding });
      answer = '127.0.0.1';
      await expect(guardedPost(`http://hooks.example:${r.port}/x`, '{}', {}, { allowPrivate: false, timeoutMs: 2000, resolve: rebinding })).rejects.toEqual(
        refused('ADDRESS_NOT_ALLOWED'),
      );
      expect(r.hits).toHaveLength(0);
    } finally {
      await r.close();
    }
  });

  test('when a name resolves to one private and one public address, then the socket is offered only the public one', async () => {
    const r = await receiver();
    try {
      // The receiver listens on loopback; were the private answer offered, this would reach it.
      const mixed: Resolve = async () => [
        { address: '127.0.0.1', family: 4 },
        { address: '192.0.2.1', family: 4 }, // TEST-NET-1: reserved, so not public either
      ];
      await expect(guardedPost(`http://hooks.example:${r.port}/x`, '{}', {}, { allowPrivate: false, timeoutMs: 1000, resolve: mixed })).rejects.toBeInstanceOf(
        OutboundRefused,
      );
      expect(r.hits).toHaveLength(0);
    } finally {
      await r.close();
    }
  });

  test('when a literal loopback address is the target without the setting, then nothing is sent', async () => {
    const r = await receiver();
    try {
      await expect(guardedPost(`http://127.0.0.1:${r.port}/x`, '{}', {}, { allowPrivate: false, timeoutMs: 2000 })).rejects.toEqual(
        refused('ADDRESS_NOT_ALLOWED'),
      );
      expect(r.hits).toHaveLength(0);
    } finally {
      await r.close();
    }
  });

  test('when the receiver redirects, then the redirect is not followed', async () => {
    const r = await receiver((_q, res) => {
      res.statusCode = 307;
      res.setHeader('location', 'http://169.254.169.254/latest');
      res.end();
    });
    try {
      const out = await guardedPost(`http://127.0.0.1:${r.port}/x`, '{}', {}, { allowPrivate: true, timeoutMs: 2000 });
      expect(out.status).toBe(307);
      expect(r.hits).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  test('when the receiver never answers, then the call fails at the timeout', async () => {
    const r = await receiver(() => {});
    try {
      const started = Date.now();
      await expect(guardedPost(`http://127.0.0.1:${r.port}/x`, '{}', {}, { allowPrivate: true, timeoutMs: 300 })).rejects.toThrow('no answer within 300 ms');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await r.close();
    }
  });
});
