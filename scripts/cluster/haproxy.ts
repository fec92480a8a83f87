import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

/** Where Debian's haproxy package installs it (`apt-get install -y haproxy`), else the first on PATH. */
export function haproxyPath(): string | null {
  const candidates = ['/usr/sbin/haproxy', ...(process.env.PATH ?? '').split(':').map((d) => `${d}/haproxy`)];
  return candidates.find((p) => existsSync(p)) ?? null;
}

export type ServerStatus = 'UP' | 'DOWN' | string;

/** A running HAProxy (foreground, `-db`) and its runtime API. */
export class Haproxy {
  private constructor(
    private readonly child: ChildProcess,
    private readonly adminSocket: string,
    /** Settles when HAProxy exits, whoever stopped it. */
    readonly exited: Promise<void>,
  ) {}

  /** Starts HAProxy on a configuration file; resolves once its runtime API answers. */
  static async start(binary: string, configFile: string, adminSocket: string, onLine?: (line: string) => void): Promise<Haproxy> {
    const child = spawn(binary, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => onLine?.(l));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const h = new Haproxy(child, adminSocket, exited);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`haproxy exited with ${child.exitCode ?? child.signalCode}`);
      try {
        await h.command('show info');
        return h;
      } catch {
        if (Date.now() > deadline) {
          await h.stop();
          throw new Error('haproxy did not start within 10 s');
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** One runtime API command's answer. */
  command(cmd: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(this.adminSocket);
      let out = '';
      socket.setTimeout(2000, () => socket.destroy(new Error('haproxy runtime API timed out')));
      socket.on('connect', () => socket.end(`${cmd}\n`));
      socket.on('data', (d) => (out += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(out));
    });
  }

  /** Each server of a backend and its check status (UP, DOWN, or a transition such as "UP 1/2"). */
  async servers(backend: string): Promise<Map<string, ServerStatus>> {
    const csv = (await this.command('show stat')).trim().split('\n');
    const header = csv[0]!.replace(/^# /, '').split(',');
    const [px, sv, st] = ['pxname', 'svname', 'status'].map((c) => header.indexOf(c));
    const result = new Map<string, ServerStatus>();
    for (const line of csv.slice(1)) {
      const f = line.split(',');
      if (f[px!] === backend && f[sv!] !== 'FRONTEND' && f[sv!] !== 'BACKEND') result.set(f[sv!]!, f[st!]!);
    }
    return result;
  }

  /** Waits until HAProxy's checks report `server` in `status` (UP: taken in; DOWN: taken out). */
  async waitFor(backend: string, server: string, status: 'UP' | 'DOWN', withinMs = 15_000): Promise<void> {
    const deadline = Date.now() + withinMs;
    while ((await this.servers(backend)).get(server) !== status) {
      if (Date.now() > deadline) throw new Error(`haproxy did not see ${server} ${status} within ${withinMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }
}
