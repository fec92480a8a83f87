/**
 * `npm run cluster [-- --processes N]`: N service processes (default 3) on one PostgreSQL (DATABASE_URL,
 * required) and Redis (REDIS_URL) behind HAProxy on one address (HOST:PORT, default 127.0.0.1:3000).
 * Each process logs prefixed with its name; Ctrl-C stops HAProxy and every process.
 */
import { startCluster } from './cluster/cluster';
import { projectRoot } from './node-flags';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: DATABASE_URL=postgres://… [REDIS_URL=redis://…] [PORT=3000] npm run cluster -- [--processes N]\n`);
  process.exit(2);
}

function processesArg(argv: string[]): number {
  const i = argv.findIndex((a) => a === '--processes' || a.startsWith('--processes='));
  if (i === -1) return 3;
  const value = argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 32) usage(`--processes must be a whole number from 1 to 32 (got ${value ?? 'nothing'})`);
  return n;
}

async function main(): Promise<void> {
  const processes = processesArg(process.argv.slice(2));
  if (!process.env.DATABASE_URL) {
    usage('DATABASE_URL is not set: the processes must share one PostgreSQL database (the embedded one opens in one process only).');
  }
  if (!process.env.REDIS_URL) {
    process.stderr.write('REDIS_URL is not set: each process counts rate limits on its own (a client gets N times the limit).\n');
  }
  const port = Number(process.env.PORT || 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65535) usage(`PORT must be a port number (got ${process.env.PORT})`);
  const host = process.env.HOST || '127.0.0.1';
  const width = `app${processes}`.length;
  const cluster = await startCluster({
    processes,
    host,
    port,
    env: process.env,
    root: projectRoot(),
    onLine: (name, line) => process.stdout.write(`${name.padEnd(width)} | ${line}\n`),
  });
  for (const p of cluster.processes) process.stdout.write(`${p.name} (pid ${p.pid}) serves ${p.url}\n`);
  process.stdout.write(`HAProxy balances ${processes} processes at ${cluster.address} (BASE_URL ${cluster.url}); Ctrl-C stops everything\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping HAProxy and ${processes} processes\n`);
    cluster
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        process.stderr.write(`stop failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  // Without the balancer the processes serve nobody at the one address: stop them too.
  void cluster.haproxy.exited.then(() => stop('haproxy exited'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`cluster failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
