import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import autocannon from 'autocannon';

/** Shared pieces of the benchmarks: a throwaway PostgreSQL database, the service as a child process, autocannon runs. */

export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function createDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface ServiceProcess {
  baseUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built service (dist/src/main.js) in its own process and waits for /ready. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const main = path.resolve(__dirname, '../../src/main.js');
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${baseUrl}/ready`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('service did not become ready');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    baseUrl,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export type RequestSetup = (context: Record<string, unknown>) => { method?: string; path: string; headers?: Record<string, string>; body?: string };

/** Closed loop at `connections`, or open loop at `rate` requests/s overall when given. */
export async function load(baseUrl: string, opts: { connections: number; seconds: number; rate?: number; setup: RequestSetup }): Promise<LoadFigures> {
  const result = await autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.rate ? { overallRate: Math.max(1, Math.floor(opts.rate)) } : {}),
    requests: [
      {
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          const r = opts.setup(context);
          return { ...req, method: r.method ?? 'GET', path: r.path, headers: { ...(req.headers as object), ...(r.headers ?? {}) }, body: r.body };
        },
      } as never,
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
