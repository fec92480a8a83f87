import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pacedCalls, replay, startScriptNodeArgs } from '../../bench/support/harness';

describe('replay', () => {
  test('hands out the drawn requests in order, round and round', () => {
    const setup = replay([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }]);
    expect([setup({}), setup({}), setup({})]).toEqual([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }, { path: '/a' }]);
  });
});

describe('pacedCalls', () => {
  test('when a run starts, then its warm-up calls go out at the same pace but are not counted', async () => {
    const calls: number[] = [];
    // The warm-up's calls are slow: none of them may reach the figures.
    const f = await pacedCalls({ rate: 200, seconds: 0.25, warmupSeconds: 0.25 }, async (i) => {
      calls.push(i);
      await new Promise((r) => setTimeout(r, i < 50 ? 100 : 0));
    });
    expect(calls).toHaveLength(100);
    expect(f.rps).toBe(50 / 0.25);
    expect(f.p99).toBeLessThan(90);
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
