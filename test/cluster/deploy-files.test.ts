import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { haproxyPath } from '../../scripts/cluster/haproxy';
import { haproxyConfig } from '../../scripts/cluster/haproxy-config';
import { serviceNodeArgs } from '../../scripts/node-flags';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('the Docker image', () => {
  test("when the image starts, then its command is package.json's start script, node flags and all, exec'd without a rebuild", () => {
    const cmd = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('CMD '))
      .at(-1)!;
    const [shell, flag, script] = JSON.parse(cmd.slice(4)) as string[];
    expect([shell, flag]).toEqual(['/bin/sh', '-c']);
    expect(script).toMatch(/^exec /);
    // The same shell line with echo in place of exec prints the command the container's PID 1 becomes.
    const printed = spawnSync(shell!, [flag!, script!.replace(/^exec /, 'echo ')], { cwd: ROOT, encoding: 'utf8' });
    expect(printed.stdout.trim()).toBe(pkg.scripts.start);
    expect(printed.stdout).toContain(serviceNodeArgs(ROOT).join(' '));
    expect(printed.stdout).not.toMatch(/npm|tsc/);
  });
});

const haproxy = haproxyPath();
const describeHaproxy = haproxy ? describe : (title: string, body: () => void) => describe.skip(`${title} (skipped: haproxy is not installed)`, body);

describeHaproxy('the HAProxy configurations', () => {
  const valid = (file: string) => spawnSync(haproxy!, ['-c', '-f', file], { encoding: 'utf8' });

  test("when HAProxy checks docker compose's deploy/haproxy.cfg, then it is valid", () => {
    const r = valid(path.join(ROOT, 'deploy/haproxy.cfg'));
    expect(`${r.status} ${r.stdout}${r.stderr}`).toMatch(/^0 /);
  });

  test("when npm run cluster generates a configuration, then it is valid and forwards the client's address to checked servers", () => {
    const text = haproxyConfig({
      listen: { host: '127.0.0.1', port: 3000 },
      servers: [
        { name: 'app1', host: '127.0.0.1', port: 4001 },
        { name: 'app2', host: '127.0.0.1', port: 4002 },
      ],
      adminSocket: '/tmp/cluster-config-check.sock',
    });
    const file = path.join(os.tmpdir(), `haproxy-check-${process.pid}.cfg`);
    writeFileSync(file, text);
    const r = valid(file);
    rmSync(file);
    expect(`${r.status} ${r.stdout}${r.stderr}`).toMatch(/^0 /);
    expect(text).toMatch(/option forwardfor/);
    expect(text).toMatch(/uri \/ready/);
    expect(text).toMatch(/server app1 127\.0\.0\.1:4001\n {2}server app2 127\.0\.0\.1:4002/);
  });
});
