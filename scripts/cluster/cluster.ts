import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { haproxyConfig } from './haproxy-config';
import { Haproxy, haproxyPath } from './haproxy';
import { ServiceProcess } from './service-process';

export const BACKEND = 'service';

export interface ClusterOptions {
  /** How many service processes (each on its own port). */
  processes: number;
  /** The balancer's address: the one the clients use. */
  host: string;
  port: number;
  /** The processes' environment: DATABASE_URL (required), REDIS_URL and any other setting. */
  env: NodeJS.ProcessEnv;
  root: string;
  checkIntervalMs?: number;
  /** Every line a process or HAProxy writes, with its name (`app1`…, `haproxy`). */
  onLine?: (name: string, line: string) => void;
}

export interface Cluster {
  /** Every process's BASE_URL: the balancer's public name. */
  url: string;
  /** Where the balancer listens, as a client on this machine reaches it (http://HOST:PORT). */
  address: string;
  processes: ServiceProcess[];
  haproxy: Haproxy;
  /** The generated configuration's folder (removed by stop). */
  dir: string;
  stop(): Promise<void>;
}

/**
 * N service processes on one PostgreSQL (and Redis) behind one HAProxy. The first process starts alone, so
 * it applies any pending migrations before the others open the database; the rest start together. Every
 * process gets the balancer's address as BASE_URL and TRUST_PROXY=1 (HAProxy is the one hop in front of it).
 */
export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  if (!o.env.DATABASE_URL) throw new Error('DATABASE_URL is required: every process must share one PostgreSQL database');
  const binary = haproxyPath();
  if (!binary) throw new Error('haproxy is not installed (Debian: apt-get install -y haproxy)');
  const baseUrl = (o.env.BASE_URL ?? `http://localhost:${o.port}`).replace(/\/+$/, '');
  const env: NodeJS.ProcessEnv = { ...o.env, BASE_URL: baseUrl, TRUST_PROXY: '1' };
  const ports = await freePorts(o.processes);
  const processes = ports.map((port, i) => new ServiceProcess({ name: `app${i + 1}`, port, env, root: o.root, onLine: o.onLine }));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cluster-'));
  let haproxy: Haproxy | undefined;
  const stop = async () => {
    await haproxy?.stop();
    await Promise.all(processes.map((p) => p.stop('SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await processes[0]!.start();
    await Promise.all(processes.slice(1).map((p) => p.start()));
    const adminSocket = path.join(dir, 'admin.sock');
    const configFile = path.join(dir, 'haproxy.cfg');
    writeFileSync(
      configFile,
      haproxyConfig({
        listen: { host: o.host, port: o.port },
        servers: processes.map((p) => ({ name: p.name, host: '127.0.0.1', port: p.port })),
        adminSocket,
        checkIntervalMs: o.checkIntervalMs,
      }),
    );
    haproxy = await Haproxy.start(binary, configFile, adminSocket, (line) => o.onLine?.('haproxy', line));
    for (const p of processes) await haproxy.waitFor(BACKEND, p.name, 'UP');
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: baseUrl, address: `http://${o.host}:${o.port}`, processes, haproxy, dir, stop };
}

/** Ports free right now on 127.0.0.1, all different (held together while they are picked). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const srv = net.createServer();
          srv.once('error', reject);
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}
