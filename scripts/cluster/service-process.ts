import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { serviceNodeArgs } from '../node-flags';

export interface ServiceProcessOptions {
  name: string;
  port: number;
  /** The whole environment of the process (PORT and HOST are set from `port` and 127.0.0.1). */
  env: NodeJS.ProcessEnv;
  root: string;
  /** Each line the process writes (stdout and stderr), e.g. its JSON log. */
  onLine?: (name: string, line: string) => void;
}

/**
 * One service process (dist/src/main.js with `npm start`'s node flags) on a fixed port, which can be
 * stopped and started again on that same port, as the balancer's configuration names it.
 */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(private readonly o: ServiceProcessOptions) {}

  get name(): string {
    return this.o.name;
  }

  get port(): number {
    return this.o.port;
  }

  /** The process's own address, past the balancer. */
  get url(): string {
    return `http://127.0.0.1:${this.o.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Spawns the process and waits until its /ready answers 200. */
  async start(readyWithinMs = 60_000): Promise<void> {
    if (this.child) throw new Error(`${this.o.name} is already running`);
    const main = path.join(this.o.root, 'dist/src/main.js');
    const child = spawn(process.execPath, [...serviceNodeArgs(this.o.root), main], {
      cwd: this.o.root,
      env: { ...this.o.env, PORT: String(this.o.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.o.onLine?.(this.o.name, line));
    }
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        this.o.onLine?.(this.o.name, `process ${child.pid} exited (${signal ?? `code ${code}`})`);
        resolve(code);
      }),
    );
    const deadline = Date.now() + readyWithinMs;
    for (;;) {
      if (this.child !== child) throw new Error(`${this.o.name} exited with ${child.exitCode ?? child.signalCode} before it was ready`);
      if (await answersReady(this.url)) return;
      if (Date.now() > deadline) {
        await this.stop('SIGKILL');
        throw new Error(`${this.o.name} was not ready within ${readyWithinMs} ms`);
      }
      await sleep(100);
    }
  }

  /**
   * SIGTERM: the service stops accepting, finishes what it holds and exits (a graceful stop).
   * SIGKILL: it dies at once, as a crash or a lost machine would end it.
   */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(signal);
    await this.exited;
  }
}

export async function answersReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
