import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pacedCalls, pacedStreams, replay, startScriptNodeArgs } from '../../bench/support/harness';

/** /slow answers after a 30 ms timer, counted from libuv's loop time, which is cached and can be up to a millisecond
 * older than the request's arrival: seen once as 29.9 ms from the client's side (a whole-suite run). */
const SLOW_FLOOR_MS = 29;

describe('replay', () => {
  test('hands out the drawn requests in order, round and round', () => {
    const setup = replay([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }]);
    expect([setup({}), setup({}), setup({})]).toEqual([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }, { path: '/a' }]);
  });
});

describe('pacedCalls', () => {
  test('when a run starts, then its warm-up calls go out at the same pace but are not counted', async () => {
    const calls: number[] = [];
    // The warm-up's calls take 2 s and the counted ones none: a warm-up call in the figures would put the p99 above 2 s.
    // The bound leaves a loaded CI machine (a stalled event loop delays the counted calls too: 159 ms seen) a wide margin.
    const f = await pacedCalls({ rate: 200, seconds: 0.25, warmupSeconds: 0.25 }, async (i) => {
      calls.push(i);
      await new Promise((r) => setTimeout(r, i < 50 ? 2000 : 0));
    });
    expect(calls).toHaveLength(100);
    expect(f.rps).toBe(50 / 0.25);
    expect(f.p99).toBeLessThan(1000);
  });
});

/** /slow answers 503 after 30 ms, /fast 200 at once: a request counted in the wrong stream would show in its figures. */
async function slowFastServer(onRequest?: () => void): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    onRequest?.();
    const slow = req.url === '/slow';
    setTimeout(() => res.writeHead(slow ? 503 : 200).end('ok'), slow ? 30 : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** 0.8 s at 200/s (after 0.1 s of warm-up) of /slow and /fast in turns of `sliceSeconds`, noting each request drawn in `sent`. */
function slowThenFast(url: string, sliceSeconds: number, sent: string[]) {
  return pacedStreams(url, {
    rate: 200,
    seconds: 0.8,
    connections: 10,
    sliceSeconds,
    warmupSeconds: 0.1,
    streams: [() => (sent.push('slow'), { path: '/slow' }), () => (sent.push('fast'), { path: '/fast' })],
  });
}

describe('pacedStreams', () => {
  test('when two streams share a run, then each slice goes to the next stream in turn and each gets its own figures', async () => {
    let served = 0;
    const { url, close } = await slowFastServer(() => (served += 1));
    try {
      const sent: string[] = [];
      const [slow, fast] = await slowThenFast(url, 0.1, sent);
      // 20 warm-up requests (the first stream's), then slices of 20 requests: slow, fast, slow, fast, ...
      expect(served).toBe(20 + 160);
      const slices = Array.from({ length: 8 }, (_, k) => sent.slice(20 + 20 * k, 40 + 20 * k));
      expect(sent.slice(0, 20).every((p) => p === 'slow')).toBe(true);
      slices.forEach((slice, k) => expect(slice).toEqual(Array(20).fill(k % 2 === 0 ? 'slow' : 'fast')));
      // Each stream's throughput over its own half of the counted time (80 requests in 0.4 s), and its own refusals.
      expect(slow!.rps).toBe(200);
      expect(fast!.rps).toBe(200);
      expect([slow!.non2xx, fast!.non2xx]).toEqual([80, 0]);
      // Four turns each, and every turn of the slow stream holds only its own answers, none quicker than 30 ms.
      expect([slow!.sliceP99.length, fast!.sliceP99.length]).toEqual([4, 4]);
      expect(Math.min(...slow!.sliceP99)).toBeGreaterThanOrEqual(SLOW_FLOOR_MS);
      expect(slow!.p50).toBeGreaterThanOrEqual(SLOW_FLOOR_MS);
    } finally {
      close();
    }
  });

  test('when a slice is one request long, then the streams alternate request by request (bench:benchmark interleaved floor)', async () => {
    const { url, close } = await slowFastServer();
    try {
      const sent: string[] = [];
      const [slow, fast] = await slowThenFast(url, 1 / 200, sent);
      expect(sent.slice(20)).toEqual(Array.from({ length: 160 }, (_, k) => (k % 2 === 0 ? 'slow' : 'fast')));
      expect([slow!.non2xx, fast!.non2xx]).toEqual([80, 0]);
      // Side by side in time, each stream still has only its own answers: every /slow one (503, never quicker than
      // 30 ms) and none of /fast's (200). No upper bound on /fast's time: a loaded machine sets that.
      expect(slow!.p50).toBeGreaterThanOrEqual(SLOW_FLOOR_MS);
      expect(Math.min(...slow!.sliceP99)).toBeGreaterThanOrEqual(SLOW_FLOOR_MS);
    } finally {
      close();
    }
  });
});

describe('startScriptNodeArgs', () => {
  test('takes the node flags between node and the script, so benches run the service as npm start does', () => {
    expect(startScriptNodeArgs('node --max-semi-space-size=64 dist/src/main.js')).toEqual(['--max-semi-space-size=64']);
    expect(startScriptNodeArgs('node  --a --b=2   dist/src/main.js --not-a-node-flag')).toEqual(['--a', '--b=2']);
    expect(startScriptNodeArgs('node dist/src/main.js')).toEqual([]);
    expect(() => startScriptNodeArgs('tsx src/main.ts')).toThrow(/does not run node/);
  });

  test('npm start caps the old generation at 256 MB (bench:soak: loaded RSS 1.25× idle, against 2.0–2.2× uncapped and 2.9× with the earlier flags)', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { scripts: { start: string } };
    expect(startScriptNodeArgs(pkg.scripts.start)).toEqual(['--max-old-space-size=256']);
  });
});
